package dev.ortho.examples;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Produces the example host programs ({@code examples/*.vmasm}) from their templates
 * ({@code examples/src/main/vmasm/*.vmasm.in}) by filling the rodata placeholders, the way a
 * compiler embeds executables and constants into a module:
 * <ul>
 * <li>{@code ${string:text}}: the UTF-8 bytes of {@code text} (no terminator);</li>
 * <li>{@code ${archive:path}}: the bytecode archive of the VMASM file {@code path} (relative to
 *     the examples folder), assembled with ExtF32/ExtF64 (a VMVX executable);</li>
 * <li>{@code ${f32:w1|b1|w2|b2}}: the little-endian f32 parameters of {@link MlpWeights}.</li>
 * </ul>
 * Run {@code main} with the examples folder to rewrite the committed files; the examples test
 * checks that the committed files equal the generated ones.
 */
public final class ExampleGenerator {
    /** The generated host programs, by file name (without extension). */
    public static final List<String> PROGRAMS = List.of("simple_mul", "mlp", "pipelined");

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(string|archive|f32):([^}]*)}");
    static final List<InstructionExtension> EXTENSIONS = List.of(new ExtF32Extension(), new ExtF64Extension());

    private ExampleGenerator() {
    }

    /** The text of {@code <program>.vmasm} generated from its template under {@code examplesDir}. */
    public static String generate(Path examplesDir, String program) {
        String template = read(examplesDir.resolve("src/main/vmasm/" + program + ".vmasm.in"));
        Matcher m = PLACEHOLDER.matcher(template);
        StringBuilder out = new StringBuilder(template.length());
        while (m.find()) {
            byte[] bytes = switch (m.group(1)) {
                case "string" -> m.group(2).getBytes(StandardCharsets.UTF_8);
                case "archive" -> BytecodeArchive.write(new Assembler(EXTENSIONS)
                        .assemble(read(examplesDir.resolve(m.group(2))), m.group(2)));
                default -> f32(switch (m.group(2)) {
                    case "w1" -> MlpWeights.w1();
                    case "b1" -> MlpWeights.b1();
                    case "w2" -> MlpWeights.w2();
                    case "b2" -> MlpWeights.b2();
                    default -> throw new StatusException(StatusCode.NOT_FOUND, "unknown tensor '" + m.group(2) + "'");
                });
            };
            m.appendReplacement(out, HexFormat.of().withUpperCase().formatHex(bytes));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** Rewrites {@code <examplesDir>/<program>.vmasm} for every program. */
    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args.length > 0 ? args[0] : "examples");
        for (String program : PROGRAMS) {
            Files.writeString(dir.resolve(program + ".vmasm"), generate(dir, program), StandardCharsets.UTF_8);
        }
    }

    private static byte[] f32(float[] values) {
        byte[] bytes = new byte[values.length * 4];
        for (int i = 0; i < values.length; i++) {
            int bits = Float.floatToRawIntBits(values[i]);
            bytes[4 * i] = (byte) bits;
            bytes[4 * i + 1] = (byte) (bits >>> 8);
            bytes[4 * i + 2] = (byte) (bits >>> 16);
            bytes[4 * i + 3] = (byte) (bits >>> 24);
        }
        return bytes;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
