package dev.ortho.launcher.internal;

import dev.ortho.base.StatusException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;

/**
 * The shell's read-execute-print loop, independent of Gogo so it can be tested alone.
 *
 * <p>Interactive (a terminal): prints a banner and a {@code g! } prompt, keeps going after a
 * failing command, exits 0 on end of input or {@code exit}. Non-interactive (piped input, a
 * script): no banner or prompt, so output is just the commands' output; exits 0 if every command
 * succeeded, 1 if any failed. Blank lines and lines starting with {@code #} are skipped. A failure
 * is a thrown exception or a Gogo lifecycle command's failure text ({@link ShellFailures}); it
 * prints on the error stream as a status, {@code CODE; message}.
 *
 * <p>Not thread-safe: one console per input stream.
 */
final class Console {

    /** Executes one command line and renders its result. */
    interface Interpreter {
        /** Runs {@code line}; returns its result, or null if it has none to print. */
        Object execute(String line) throws Exception;

        /** Renders a non-null result the way the shell shows it. */
        CharSequence format(Object result);
    }

    private final Interpreter interpreter;
    private final PrintStream out;
    private final PrintStream err;

    Console(Interpreter interpreter, PrintStream out, PrintStream err) {
        this.interpreter = interpreter;
        this.out = out;
        this.err = err;
    }

    /** Runs until end of input or {@code exit}; returns the process exit code. */
    int run(BufferedReader in, boolean interactive, String banner) throws IOException {
        boolean anyFailed = false;
        if (interactive) {
            out.println(banner);
        }
        while (true) {
            if (interactive) {
                out.print("g! ");
                out.flush();
            }
            String line = in.readLine();
            if (line == null) {
                if (interactive) {
                    out.println();
                }
                break;
            }
            String command = line.strip();
            if (command.isEmpty() || command.startsWith("#")) {
                continue;
            }
            if (command.equals("exit") || command.equals("quit")) {
                break;
            }
            try {
                Object result = interpreter.execute(command);
                StatusException failure = ShellFailures.ofResult(command, result);
                if (failure != null) {
                    throw failure;
                }
                CharSequence text = result == null ? "" : interpreter.format(result);
                if (!text.isEmpty()) {
                    out.println(text);
                }
            } catch (Exception e) {
                anyFailed = true;
                out.flush();
                err.println(describe(e));
            }
            out.flush();
        }
        return interactive || !anyFailed ? 0 : 1;
    }

    /**
     * {@code CODE; message} for any failure: Ortho's statuses as they are, other exceptions (and
     * Gogo's) with a code from their class ({@link ShellFailures#ofException}).
     */
    static String describe(Throwable e) {
        return ShellFailures.ofException(e).toString();
    }
}
