package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the shell's failures into IREE statuses, so that every failing command reads as
 * {@code CODE; message} (as the tools print) and counts as a failure for the exit code.
 *
 * <p>Two kinds of failure need it. Exceptions that are not {@link StatusException}s (Gogo's
 * {@code Cannot coerce …} and {@code Command not found: …}, a command's own Java exception) get a
 * code from their class. And Gogo's bundle lifecycle commands ({@code start}, {@code install},
 * …) do not throw: they <em>return</em> their failures as text, either an exception's
 * {@code toString()} ({@code java.io.FileNotFoundException: /x.jar (No such file or directory)})
 * or a fixed sentence ({@code Unable to parse id 'x'.}); {@link #ofResult} recognizes those.
 *
 * <p>Stateless and thread-safe.
 */
final class ShellFailures {
    /** Gogo's (scope {@code felix}) commands that report failures in their returned text. */
    private static final Set<String> LIFECYCLE_COMMANDS = Set.of("install", "start", "stop", "uninstall",
            "update", "refresh", "resolve", "bundlelevel", "frameworklevel");
    /** A {@code Throwable.toString()}: a qualified class name ending in Exception/Error, then the message. */
    private static final Pattern THROWABLE_TEXT =
            Pattern.compile("((?:[a-zA-Z_$][\\w$]*\\.)+([A-Z][\\w$]*(?:Exception|Error)))(?:: (.*))?");
    /** The failure sentences of Gogo's lifecycle commands, by the code they mean. */
    private static final List<Object[]> SENTENCES = List.of(
            new Object[] {Pattern.compile("Bundle ID '.*' +is invalid\\."), StatusCode.NOT_FOUND},
            new Object[] {Pattern.compile("Not all bundles could be resolved\\."), StatusCode.FAILED_PRECONDITION},
            new Object[] {Pattern.compile("(Please specify|Must specify|Cannot specify|Unable to parse|"
                    + "Unable to open input stream|Specified start level|Only one of) .*"),
                StatusCode.INVALID_ARGUMENT});

    private ShellFailures() {
    }

    /**
     * The status a failed command's exception reads as: a {@link StatusException} as it is (after
     * unwrapping reflective wrappers), anything else with a code from its class
     * ({@link #codeOf}) and its message.
     */
    static StatusException ofException(Throwable e) {
        while ((e instanceof InvocationTargetException || e instanceof UndeclaredThrowableException)
                && e.getCause() != null) {
            e = e.getCause(); // a command's own exception, wrapped by reflective dispatch
        }
        if (e instanceof StatusException status) {
            return status;
        }
        String message = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
        String simpleName = e.getClass().getSimpleName();
        if (simpleName.equals("CommandNotFoundException")) {
            return new StatusException(StatusCode.NOT_FOUND,
                    lowerFirst(message) + " (type 'help' to list commands)", e);
        }
        if (message.startsWith("Cannot coerce ")) { // Gogo found the command but no overload fits
            return new StatusException(StatusCode.INVALID_ARGUMENT, "wrong arguments: " + lowerFirst(message)
                    + " (missing or extra arguments, or a bundle that is not installed)", e);
        }
        return new StatusException(codeOf(simpleName), message, e);
    }

    /**
     * The failure that the text {@code result} of command line {@code command} reports, or null
     * if it reports none. Only Gogo's lifecycle commands are read this way (other commands throw),
     * so a command that merely prints an exception's name is not mistaken for a failure.
     */
    static StatusException ofResult(String command, Object result) {
        if (!(result instanceof CharSequence text) || !LIFECYCLE_COMMANDS.contains(commandName(command))) {
            return null;
        }
        List<String> failures = new ArrayList<>();
        StatusCode code = null;
        for (String line : text.toString().split("\\R")) {
            String failure = line.strip();
            StatusCode lineCode = null;
            Matcher throwable = THROWABLE_TEXT.matcher(failure);
            if (throwable.matches()) {
                lineCode = codeOf(throwable.group(2));
                failure = throwable.group(3) == null ? throwable.group(1) : throwable.group(3);
            } else {
                for (Object[] sentence : SENTENCES) {
                    if (((Pattern) sentence[0]).matcher(failure).matches()) {
                        lineCode = (StatusCode) sentence[1];
                        break;
                    }
                }
            }
            if (lineCode != null) {
                code = code == null ? lineCode : code;
                failures.add(failure);
            }
        }
        return code == null ? null : new StatusException(code, String.join("; ", failures) + "; " + command);
    }

    /**
     * An IREE code for a Java exception class (by simple name): not found, bad argument, bad
     * state, no permission, I/O; {@code UNKNOWN} for anything else.
     */
    static StatusCode codeOf(String simpleName) {
        return switch (simpleName) {
            case "FileNotFoundException", "NoSuchFileException", "ClassNotFoundException", "UnknownHostException",
                 "CommandNotFoundException" -> StatusCode.NOT_FOUND;
            case "MalformedURLException", "URISyntaxException", "IllegalArgumentException", "NumberFormatException",
                 "InvalidSyntaxException" -> StatusCode.INVALID_ARGUMENT;
            case "BundleException", "IllegalStateException" -> StatusCode.FAILED_PRECONDITION;
            case "SecurityException", "AccessDeniedException" -> StatusCode.PERMISSION_DENIED;
            case "UnsupportedOperationException" -> StatusCode.UNIMPLEMENTED;
            case "IOException", "ConnectException", "SocketException" -> StatusCode.UNAVAILABLE;
            case "OutOfMemoryError" -> StatusCode.RESOURCE_EXHAUSTED;
            case "InterruptedException", "CancellationException" -> StatusCode.CANCELLED;
            case "TimeoutException" -> StatusCode.DEADLINE_EXCEEDED;
            default -> StatusCode.UNKNOWN;
        };
    }

    /** The command word of a command line, without a {@code felix:} scope. */
    private static String commandName(String command) {
        String word = command.strip().split("\\s+", 2)[0];
        return word.startsWith("felix:") ? word.substring("felix:".length()) : word;
    }

    private static String lowerFirst(String text) {
        return text.isEmpty() ? text : text.substring(0, 1).toLowerCase(Locale.ROOT) + text.substring(1);
    }
}
