package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.ShmWorkerLauncher;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/**
 * Starts {@code remote://shm?device=URI} worker children as {@code java <this JVM's options> -jar
 * <ortho.jar> shm-worker MAILBOX CAPACITY URI}: under {@code java -jar ortho.jar} the class path
 * is the jar alone, so the child boots the same framework and creates the device through its
 * driver registry. A debugger agent option is not passed on (its port would clash). Stateless,
 * thread-safe.
 */
@Component(service = ShmWorkerLauncher.class)
public final class OrthoShmLauncher implements ShmWorkerLauncher {
    @Override
    public List<String> command(Path mailbox, long capacity, String device) {
        return command(System.getProperty("java.class.path", ""), ManagementFactory.getRuntimeMXBean().getInputArguments(),
                mailbox, capacity, device);
    }

    static List<String> command(String classPath, List<String> jvmOptions, Path mailbox, long capacity, String device) {
        if (classPath.isEmpty() || classPath.contains(File.pathSeparator) || !classPath.endsWith(".jar")
                || !Files.isRegularFile(Path.of(classPath))) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot start a shared-memory worker for device '" + device
                    + "': this JVM was not started as 'java -jar ortho.jar' (class path '" + classPath + "')");
        }
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        for (String option : jvmOptions) {
            if (!option.startsWith("-agentlib:jdwp") && !option.startsWith("-Xrunjdwp")) {
                command.add(option);
            }
        }
        command.addAll(List.of("-jar", classPath, ShmWorkerCommand.NAME, mailbox.toString(), Long.toString(capacity),
                device));
        return command;
    }
}
