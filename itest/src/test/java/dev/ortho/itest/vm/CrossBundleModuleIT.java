package dev.ortho.itest.vm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.ops4j.pax.exam.CoreOptions.composite;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.itest.OrthoFramework;
import dev.ortho.itest.vm.modulea.ModuleAActivator;
import dev.ortho.itest.vm.moduleb.ModuleBActivator;
import dev.ortho.vm.Context;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.ModuleRegistry;
import dev.ortho.vm.VmList;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import javax.inject.Inject;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Converter;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * Two VM modules provided by two bundles installed at runtime link and call each other through
 * the {@link ModuleRegistry} service: module {@code b} (bundle {@code dev.ortho.itest.vm.b})
 * imports {@code a.add} from module {@code a} (bundle {@code dev.ortho.itest.vm.a}). After
 * {@code a}'s bundle is uninstalled, new links fail with NOT_FOUND while a context linked
 * before keeps working (the registry's documented removal rule). Both bundles are built with
 * TinyBundles on the host side in {@link #config()}; the framework only sees their jar files.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class CrossBundleModuleIT {
    private static final long WAIT_NANOS = 10_000_000_000L;

    @Inject
    private BundleContext context;

    @Inject
    private ModuleRegistry registry;

    @Inject
    private Instance instance;

    @Inject
    private CommandProcessor shell;

    @Configuration
    public Option[] config() throws Exception {
        return new Option[] {
            composite(OrthoFramework.provisioning()),
            systemProperty("it.vm.bundle.a").value(ModuleBundles.build("a", ModuleAActivator.class)),
            systemProperty("it.vm.bundle.b").value(ModuleBundles.build("b", ModuleBActivator.class)),
        };
    }

    @Test
    public void moduleFromOneBundleCallsTheModuleOfAnotherAndUnlinksWhenItIsUninstalled() throws Exception {
        assertFalse("no module 'a' before the install", registry.modules().containsKey("a"));
        Bundle a = context.installBundle(System.getProperty("it.vm.bundle.a"));
        Bundle b = context.installBundle(System.getProperty("it.vm.bundle.b"));
        try {
            a.start();
            b.start();
            awaitTrue("both providers tracked",
                    () -> registry.modules().containsKey("a") && registry.modules().containsKey("b"));
            String listing = vm("vm:modules");
            assertTrue(listing, listsModule(listing, "a", a));
            assertTrue(listing, listsModule(listing, "b", b));

            try (Context linked = Context.create(instance)) {
                registry.registerWithDependencies(linked, registry.create(instance, "b", 1));
                assertEquals("a is registered first, as b's dependency",
                        List.of("a", "b"), linked.modules().stream().map(Module::name).toList());
                assertEquals(42, call(linked, "b.twice", 21));
                assertEquals(6, call(linked, "b.sum", 1, 2, 3));

                a.uninstall();
                awaitTrue("provider of a untracked", () -> !registry.modules().containsKey("a"));
                String after = vm("vm:modules");
                assertFalse(after, listsModule(after, "a", a));
                assertTrue(after, listsModule(after, "b", b));
                try {
                    registry.registerWithDependencies(Context.create(instance), registry.create(instance, "b", 1));
                    fail("b must not link once a's bundle is gone");
                } catch (StatusException e) {
                    assertEquals(e.toString(), StatusCode.NOT_FOUND, e.code());
                    assertEquals("no module provider for 'a'", e.baseMessage());
                }
                assertEquals("a context linked before the uninstall keeps its modules",
                        -8, call(linked, "b.sum", -1, -2, -5));
            }
        } finally {
            for (Bundle bundle : List.of(b, a)) {
                if (bundle.getState() != Bundle.UNINSTALLED) {
                    bundle.uninstall();
                }
            }
        }
        awaitTrue("provider of b untracked", () -> !registry.modules().containsKey("b"));
    }

    @Test
    public void typesCommandListsTheBuiltInTypesOfTheSharedInstance() throws Exception {
        String listing = vm("vm:types");
        assertTrue(listing, listing.matches("(?s)instance \\d+: \\d+ types\n.*"));
        // the name column is as wide as the longest registered name (hal.* types may be present)
        assertTrue(listing, Pattern.compile("(?m)^  vm\\.buffer +dev\\.ortho\\.vm\\.VmBuffer$").matcher(listing).find());
        assertTrue(listing, Pattern.compile("(?m)^  vm\\.list +dev\\.ortho\\.vm\\.VmList$").matcher(listing).find());
    }

    /** True if {@code listing} has the row {@code module 1 <bsn> 1.0.0 [<id>]} (columns padded). */
    private static boolean listsModule(String listing, String module, Bundle bundle) {
        return Pattern.compile("(?m)^" + module + " +1  " + Pattern.quote(bundle.getSymbolicName() + " 1.0.0 ["
                + bundle.getBundleId() + "]") + "\\r?$").matcher(listing).find();
    }

    private int call(Context linked, String function, int... args) {
        VmList inputs = VmList.ofVariants(args.length);
        for (int arg : args) {
            inputs.pushI32(arg);
        }
        VmList outputs = VmList.ofVariants(1);
        Invocation.invoke(linked, linked.resolveFunction(function), inputs, outputs);
        return outputs.getI32(0);
    }

    /** Runs {@code command} through the real Gogo command processor and returns its output. */
    private String vm(String command) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        CommandSession session = shell.createSession(InputStream.nullInputStream(), out, out);
        try {
            Object result = session.execute(command);
            if (result != null) {
                out.println(session.format(result, Converter.INSPECT));
            }
        } finally {
            session.close();
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting: " + what);
            }
            Thread.sleep(10);
        }
    }
}
