package dev.ortho.base;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The one exception that crosses Ortho API boundaries: an IREE {@link StatusCode}, a message that
 * names the thing that was wrong and its value, and the annotations added as the error travelled up.
 *
 * <p>Context is added with {@link #annotate(String)} rather than by wrapping in a new exception,
 * so the code a caller branches on is always the original one:
 *
 * <pre>{@code
 * try {
 *     loader.prepare(executable);
 * } catch (StatusException e) {
 *     throw e.annotate("while preparing executable 'mmt4d'");
 * }
 * }</pre>
 *
 * <p>{@link #toString()} follows IREE's status formatting, {@code CODE; message; annotation; ...},
 * which is also what the command-line tools print on failure.
 *
 * <p>Thread-safety: the code and message are immutable; annotations may be added and read from
 * any thread (an asynchronous failure is shared by every waiter on a failed semaphore).
 */
public class StatusException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final StatusCode code;
    private final String baseMessage;
    /** Guarded by {@code this}; appended in annotation order. */
    private final List<String> annotations = new ArrayList<>(0);

    /**
     * Creates an exception carrying {@code code} and {@code message}.
     *
     * @param code any code except {@link StatusCode#OK} (an OK status is not an error)
     * @param message what was wrong, naming the object and the offending value; may be empty
     * @throws IllegalArgumentException if {@code code} is {@code OK}: a programming error
     */
    public StatusException(StatusCode code, String message) {
        this(code, message, null);
    }

    /**
     * Creates an exception carrying {@code code} and {@code message}, caused by {@code cause}
     * (e.g. the {@link java.io.IOException} behind an {@code UNAVAILABLE}).
     *
     * @throws IllegalArgumentException if {@code code} is {@code OK}
     */
    public StatusException(StatusCode code, String message, Throwable cause) {
        super(message, cause);
        Objects.requireNonNull(code, "code");
        if (code == StatusCode.OK) {
            throw new IllegalArgumentException("a StatusException cannot carry OK");
        }
        this.code = code;
        this.baseMessage = message == null ? "" : message;
    }

    /** The IREE status code; never {@link StatusCode#OK}. */
    public StatusCode code() {
        return code;
    }

    /** The message given at construction, without annotations. */
    public String baseMessage() {
        return baseMessage;
    }

    /**
     * Appends {@code context} to this exception's annotations and returns this exception, so a
     * handler can write {@code throw e.annotate("while …")}.
     */
    public StatusException annotate(String context) {
        Objects.requireNonNull(context, "context");
        synchronized (this) {
            annotations.add(context);
        }
        return this;
    }

    /** A snapshot of the annotations, oldest first. */
    public synchronized List<String> annotations() {
        return List.copyOf(annotations);
    }

    /** The message followed by every annotation, joined with {@code "; "} as IREE does. */
    @Override
    public String getMessage() {
        synchronized (this) {
            if (annotations.isEmpty()) {
                return baseMessage;
            }
            StringBuilder text = new StringBuilder(baseMessage);
            for (String annotation : annotations) {
                if (!text.isEmpty()) {
                    text.append("; ");
                }
                text.append(annotation);
            }
            return text.toString();
        }
    }

    /** IREE's status text: {@code CODE; message; annotation; ...} (just {@code CODE} if empty). */
    @Override
    public String toString() {
        String message = getMessage();
        return message.isEmpty() ? code.name() : code.name() + "; " + message;
    }
}
