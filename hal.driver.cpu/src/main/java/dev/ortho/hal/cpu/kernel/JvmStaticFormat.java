package dev.ortho.hal.cpu.kernel;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code jvm-static} executable format: executable data that names a {@link KernelLibrary}
 * and, optionally, which of its functions the executable exports.
 *
 * <p>The data is UTF-8 text of {@code key=value} lines ({@code \n} or {@code \r\n}); blank lines
 * and lines starting with {@code #} are ignored. Keys:
 * <ul>
 *   <li>{@code library=<name>} (required, once): the library's {@link KernelLibrary#name()};
 *   <li>{@code functions=<name>,<name>,…} (optional, once): the exported functions in ordinal
 *       order; without it the executable exports every function of the library in library order.
 * </ul>
 * Example: {@code library=builtin\nfunctions=add_f32,mul_f32\n}. At most {@link #MAX_DATA_BYTES}
 * bytes.
 *
 * <p>Not instantiable; every method is pure and thread-safe.
 */
public final class JvmStaticFormat {
    /** The executable format name, {@value}. */
    public static final String FORMAT = "jvm-static";
    /** The largest accepted executable data, {@value} bytes. */
    public static final int MAX_DATA_BYTES = 64 * 1024;

    /**
     * A parsed executable description.
     *
     * @param library the library name
     * @param functions the selected function names, empty for "all of the library"
     */
    public record Descriptor(String library, List<String> functions) {}

    private JvmStaticFormat() {}

    /** Encodes executable data naming {@code library} and optionally a selection of functions. */
    public static MemorySegment encode(String library, String... functions) {
        StringBuilder text = new StringBuilder("library=").append(library).append('\n');
        if (functions.length > 0) {
            text.append("functions=").append(String.join(",", functions)).append('\n');
        }
        return MemorySegment.ofArray(text.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Parses executable data.
     *
     * @throws StatusException INVALID_ARGUMENT naming the offending line for data that is too
     *     large, not UTF-8 {@code key=value} lines, has unknown or repeated keys, an empty name, or
     *     no {@code library}
     */
    public static Descriptor parse(MemorySegment data) {
        if (data == null) {
            throw invalid("executable data is null");
        }
        if (data.byteSize() > MAX_DATA_BYTES) {
            throw invalid("executable data is " + data.byteSize() + " bytes, more than the limit " + MAX_DATA_BYTES);
        }
        byte[] bytes = data.toArray(ValueLayout.JAVA_BYTE);
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw invalid("executable data is not UTF-8 text");
        }
        String library = null;
        List<String> functions = null;
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int equals = line.indexOf('=');
            if (equals <= 0) {
                throw invalid("line " + (i + 1) + " '" + abbreviate(line) + "' is not key=value");
            }
            String key = line.substring(0, equals).strip();
            String value = line.substring(equals + 1).strip();
            switch (key) {
                case "library" -> {
                    if (library != null) {
                        throw invalid("line " + (i + 1) + " repeats key 'library'");
                    }
                    library = requireName(value, "library", i);
                }
                case "functions" -> {
                    if (functions != null) {
                        throw invalid("line " + (i + 1) + " repeats key 'functions'");
                    }
                    functions = new ArrayList<>();
                    for (String name : value.split(",", -1)) {
                        functions.add(requireName(name.strip(), "function", i));
                    }
                }
                default -> throw invalid("line " + (i + 1) + " has unknown key '" + abbreviate(key)
                        + "' (expected 'library' or 'functions')");
            }
        }
        if (library == null) {
            throw invalid("executable data names no library (expected a 'library=<name>' line)");
        }
        return new Descriptor(library, functions == null ? List.of() : List.copyOf(functions));
    }

    private static String requireName(String value, String what, int line) {
        if (value.isEmpty()) {
            throw invalid("line " + (line + 1) + " has an empty " + what + " name");
        }
        return value;
    }

    private static String abbreviate(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "…";
    }

    private static StatusException invalid(String message) {
        return new StatusException(StatusCode.INVALID_ARGUMENT, "jvm-static: " + message);
    }
}
