package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.DriverRegistry;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code ortho} command line: {@code ortho [subcommand | flag] [args...]}.
 *
 * <p>Contract: no arguments starts the shell; {@code --help} prints usage to stdout (exit 0); an
 * unknown subcommand or flag prints the problem and usage to stderr (exit 2); a tool that fails
 * prints IREE's {@code CODE; message} to stderr and exits 1. Flags use IREE's names
 * ({@code --list_drivers}, {@code --list_devices[=driver]}, {@code --dump_devices[=driver]}).
 *
 * <p>Plain Java: built from its collaborators, usable without a framework. Not thread-safe; one
 * invocation at a time.
 */
final class Cli {
    static final int EXIT_OK = 0;
    static final int EXIT_FAILURE = 1;
    static final int EXIT_USAGE = 2;

    /** A subcommand: {@code ortho <name> [args...]}. */
    interface Subcommand {
        /** One line for {@code --help}. */
        String summary();

        /** Runs with the arguments after the subcommand name; returns the exit code. */
        int run(List<String> args, PrintStream out, PrintStream err);
    }

    /** What {@code ortho} with no arguments does (the interactive shell). */
    interface Shell {
        int run();
    }

    private final DriverRegistry drivers;
    private final String version;
    private final Shell shell;
    private final Map<String, Subcommand> subcommands = new LinkedHashMap<>();
    /** Subcommands other processes of Ortho run; not listed in {@code --help}. */
    private final Map<String, Subcommand> internal = new LinkedHashMap<>();

    Cli(DriverRegistry drivers, String version, Shell shell) {
        this.drivers = drivers;
        this.version = version;
        this.shell = shell;
        subcommands.put("serve-device", new ServeDevice(drivers, ServeDevice::untilStopped));
        internal.put(ShmWorkerCommand.NAME, new ShmWorkerCommand(drivers));
        subcommands.put("version", new Subcommand() {
            @Override
            public String summary() {
                return "print the Ortho, Java and OSGi framework versions";
            }

            @Override
            public int run(List<String> args, PrintStream out, PrintStream err) {
                if (!args.isEmpty()) {
                    return usageError("'version' takes no arguments, got '" + args.get(0) + "'", err);
                }
                out.println(Cli.this.version);
                return EXIT_OK;
            }
        });
    }

    /** Adds {@code subcommand} as {@code ortho <name>}; it is listed in {@code --help} after earlier ones. */
    Cli add(String name, Subcommand subcommand) {
        subcommands.put(name, subcommand);
        return this;
    }

    /** Runs {@code args} (the process arguments) and returns the process exit code. */
    int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            return shell.run();
        }
        String first = args[0];
        List<String> rest = List.of(args).subList(1, args.length);
        try {
            if (first.equals("--help") || first.equals("-h") || first.equals("help")) {
                out.print(usage());
                return EXIT_OK;
            }
            if (first.startsWith("-")) {
                return runFlag(first, rest, out, err);
            }
            Subcommand subcommand = subcommands.getOrDefault(first, internal.get(first));
            if (subcommand == null) {
                return usageError("unknown subcommand '" + first + "'", err);
            }
            return subcommand.run(rest, out, err);
        } catch (StatusException e) {
            err.println(e);
            return EXIT_FAILURE;
        } catch (RuntimeException | Error e) {
            // A defect, not bad input: report it in the status form every failure takes, with the
            // stack for a bug report, and fail; the exit code is never left to the launcher.
            err.println("INTERNAL; unexpected " + e + " in 'ortho " + first + "' (a defect; its stack follows)");
            e.printStackTrace(err);
            return EXIT_FAILURE;
        }
    }

    private int runFlag(String flag, List<String> rest, PrintStream out, PrintStream err) {
        if (!rest.isEmpty()) {
            return usageError("flag '" + flag + "' takes no further arguments, got '"
                    + rest.get(0) + "'", err);
        }
        if (flag.equals("--list_drivers")) {
            out.print(DriverListing.drivers(drivers.enumerate()));
            return EXIT_OK;
        }
        if (flag.equals("--list_devices")) {
            out.print(DriverListing.devices(drivers, null));
            return EXIT_OK;
        }
        if (flag.startsWith("--list_devices=")) {
            String driverName = flag.substring("--list_devices=".length());
            if (driverName.isEmpty()) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT,
                        "--list_devices= needs a driver name, e.g. --list_devices=local-task");
            }
            out.print(DriverListing.devices(drivers, driverName));
            return EXIT_OK;
        }
        if (flag.equals("--dump_devices")) {
            out.print(DeviceDump.dumpDevices(drivers, null));
            return EXIT_OK;
        }
        if (flag.startsWith("--dump_devices=")) {
            String driverName = flag.substring("--dump_devices=".length());
            if (driverName.isEmpty()) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT,
                        "--dump_devices= needs a driver name, e.g. --dump_devices=local-sync");
            }
            out.print(DeviceDump.dumpDevices(drivers, driverName));
            return EXIT_OK;
        }
        return usageError("unknown flag '" + flag + "'", err);
    }

    private int usageError(String problem, PrintStream err) {
        err.println("ortho: " + problem);
        err.print(usage());
        return EXIT_USAGE;
    }

    String usage() {
        StringBuilder text = new StringBuilder();
        text.append("Usage: ortho [SUBCOMMAND [ARGS...] | FLAG]\n\n")
                .append("Ortho runs IREE programs on an OSGi plugin platform.\n")
                .append("With no arguments, starts the Gogo shell; when standard input is not a\n")
                .append("terminal the shell reads commands from it without prompting, e.g.\n")
                .append("  echo 'hal:drivers' | ortho\n\n")
                .append("Subcommands:\n");
        for (Map.Entry<String, Subcommand> entry : subcommands.entrySet()) {
            text.append(String.format("  %-22s %s%n", entry.getKey(), entry.getValue().summary()));
        }
        text.append(String.format("  %-22s %s%n", "help", "print this help"))
                .append("\nFlags:\n")
                .append(String.format("  %-22s %s%n", "--list_drivers", "list the available HAL drivers"))
                .append(String.format("  %-22s %s%n", "--list_devices[=NAME]",
                        "list the devices of every driver, or of driver NAME"))
                .append(String.format("  %-22s %s%n", "--dump_devices[=NAME]",
                        "create and describe every device of every driver, or of driver NAME"))
                .append(String.format("  %-22s %s%n", "--help", "print this help"))
                .append("\nExit codes: 0 success, 1 failure (printed as 'CODE; message'), 2 usage error.\n");
        return text.toString();
    }
}
