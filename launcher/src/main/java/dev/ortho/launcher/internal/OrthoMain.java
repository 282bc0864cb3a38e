package dev.ortho.launcher.internal;

import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.remote.ShmWorkerLauncher;
import dev.ortho.vm.Instance;
import dev.ortho.vm.spi.InstructionExtension;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Converter;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * The {@code ortho} process's main thread, run inside the framework.
 *
 * <p>The bnd launcher registers itself as a service carrying the process arguments
 * ({@code launcher.arguments}) and, once every bundle has started, calls the
 * {@code main.thread=true} {@link Callable} on the JVM's main thread and exits with its result.
 * This component exists only under that launcher: in any other host (Karaf, a Pax Exam test) the
 * launcher service is absent, so the component stays unsatisfied and does nothing.
 */
@Component(service = Callable.class, property = "main.thread=true")
public final class OrthoMain implements Callable<Integer> {
    private final String[] args;
    private final DriverRegistry drivers;
    private final CommandProcessor commands;
    private final BundleContext context;
    private final Instance instance;

    /** Instruction extension services (ExtF32, ExtF64, third parties) for the VM tools; replaced on change. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile List<InstructionExtension> extensions;

    @Activate
    public OrthoMain(BundleContext context,
            @Reference(service = Object.class, target = "(launcher.arguments=*)")
            Map<String, Object> launcher,
            @Reference DriverRegistry drivers,
            @Reference CommandProcessor commands,
            @Reference Instance instance,
            // Not used here: requiring it orders start-up, so that a command never runs before
            // the remote driver can start shared-memory workers (remote://shm?device=...); the
            // registration is announced synchronously, so the remote driver has bound it by now.
            @Reference ShmWorkerLauncher shmWorkers) {
        this.context = context;
        this.instance = instance;
        this.args = launcher.get("launcher.arguments") instanceof String[] given ? given.clone() : new String[0];
        this.drivers = drivers;
        this.commands = commands;
    }

    /** Runs the command line; the bnd launcher exits the JVM with the returned code. */
    @Override
    public Integer call() {
        // The process's real standard streams: once Gogo runs, System.out/err are its per-thread
        // multiplexers, and a session writing back into them would recurse forever.
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, Charset.defaultCharset());
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, Charset.defaultCharset());
        Cli cli = new Cli(drivers, versionText(), () -> runShell(out, err));
        VmTools tools = new VmTools(instance, drivers, () -> extensions == null ? List.of() : List.copyOf(extensions),
                () -> new FileInputStream(FileDescriptor.in));
        tools.subcommands().forEach(cli::add);
        int code;
        try {
            code = cli.run(args, out, err);
        } finally {
            tools.close(); // its hal type registration
        }
        out.flush();
        err.flush();
        return code;
    }

    private int runShell(PrintStream out, PrintStream err) {
        FileInputStream stdin = new FileInputStream(FileDescriptor.in);
        CommandSession session = commands.createSession(stdin, out, err);
        try {
            Console console = new Console(new Console.Interpreter() {
                @Override
                public Object execute(String line) throws Exception {
                    return session.execute(line);
                }

                @Override
                public CharSequence format(Object result) {
                    return session.format(result, Converter.INSPECT);
                }
            }, out, err);
            java.io.Console terminal = System.console();
            boolean interactive = terminal != null && terminal.isTerminal();
            BufferedReader in = new BufferedReader(new InputStreamReader(stdin, Charset.defaultCharset()));
            return console.run(in, interactive, versionText()
                    + "\nGogo shell: 'help' lists commands (e.g. hal:drivers, lb), 'exit' leaves.");
        } catch (IOException e) {
            err.println("ortho: cannot read standard input: " + e.getMessage());
            return Cli.EXIT_FAILURE;
        } finally {
            session.close();
        }
    }

    private String versionText() {
        Bundle self = context.getBundle();
        Bundle framework = context.getBundle(0);
        return "ortho " + self.getVersion() + " (Java " + Runtime.version() + ", "
                + System.getProperty("java.vm.vendor") + "; " + framework.getSymbolicName() + " "
                + framework.getVersion() + ")";
    }
}
