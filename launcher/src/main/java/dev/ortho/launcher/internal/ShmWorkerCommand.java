package dev.ortho.launcher.internal;

import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.remote.ShmWorker;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code ortho shm-worker MAILBOX CAPACITY DEVICE_URI} (internal, not in {@code --help}): the
 * child JVM of a {@code remote://shm?device=URI} worker, started by {@link OrthoShmLauncher}.
 * Serves the mailbox with devices created through this framework's driver registry until the
 * client shuts it down or dies.
 */
final class ShmWorkerCommand implements Cli.Subcommand {
    static final String NAME = "shm-worker";

    private final DriverRegistry drivers;

    ShmWorkerCommand(DriverRegistry drivers) {
        this.drivers = drivers;
    }

    @Override
    public String summary() {
        return "(internal) serve a shared-memory mailbox to the ortho process that started this one";
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) {
        long capacity = -1;
        if (args.size() == 3) {
            try {
                capacity = Long.parseLong(args.get(1));
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        if (capacity <= 0) {
            err.println("ortho " + NAME + ": usage: ortho " + NAME + " MAILBOX_FILE CAPACITY DEVICE_URI (internal: "
                    + "started by remote://shm?device=URI), got " + args);
            return Cli.EXIT_USAGE;
        }
        String device = args.get(2);
        try {
            ShmWorker.serve(Path.of(args.get(0)), capacity, () -> drivers.createDevice(device));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Cli.EXIT_FAILURE;
        }
        return Cli.EXIT_OK;
    }
}
