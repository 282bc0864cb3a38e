package dev.ortho.vm.asm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.time.Duration;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Mutated, truncated and random VMASM never escapes as anything but an INVALID_ARGUMENT
 * {@link StatusException} carrying {@code file:line:col}, and never hangs.
 */
class AssemblerFuzzTest {
    private static final Pattern LOCATED = Pattern.compile("^f\\.vmasm:\\d+(:\\d+)?: .+", Pattern.DOTALL);
    private static final String ALPHABET = "%ir R:0123456789,()[]{}<>^@!.=-\"_#/?vm\n\t";
    private static final String SOURCE = """
            vm.module @fuzz version 1 attributes {k = "v"}
            vm.type !vm.buffer
            vm.dependency optional @hal version 7
            vm.import optional @other.f cconv "0CiDi_i"
            vm.rodata[0] = 0A0B
            vm.global.i32 private mutable @g = 0 : i32
            vm.export @main
            vm.func @main(%i0: i32, %i1:2: i64, %r0: !vm.ref<?>) -> (i32) attributes {a = "b"} {
            ^bb0:
              %i3 = vm.const.i32 0x7F  // comment
              %i4:5 = vm.const.i64 -3
              %i6 = vm.const.f32 1.5e3
              %i7 = vm.call.variadic @other.f segments[2](%i0, %i3)
              %r1 = vm.list.alloc %i3 : !vm.list<i32>
              %r2 = vm.select.ref %i0 ? %R0 : %r1 -> !vm.buffer
              %i8 = vm.switch.i32 %i0[%i3, %i7] else %i6
              vm.global.store.i32 %i8, @g
              %r3 = vm.global.load.indirect.ref .refs[%i0] : !vm.buffer
              vm.buffer.store.i32 %i3, %r2, %i4:5
              vm.br_table %i0 { default: ^bb1(%i3->%i0), 0: ^bb2() }
            ^bb1:
              vm.call.yieldable @helper(%i0) -> ^bb2(%i9)
            ^bb2:
              vm.trace "t"(%i0, %r3)
              vm.fail %i0, "msg # not comment"
            }
            vm.func @helper(%i0: i32) -> (i32) {
              vm.return %i0
            }
            """;

    @Test
    void mutatedSourceFailsOnlyWithLocatedInvalidArgument() {
        AsmTesting.ASSEMBLER.assemble(SOURCE, "f.vmasm");
        // One generous hang guard around all iterations (not a timing assertion).
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            Random random = new Random(42);
            int failures = 0;
            for (int i = 0; i < 6000; i++) {
                String text = mutate(SOURCE, random);
                try {
                    AsmTesting.ASSEMBLER.assemble(text, "f.vmasm");
                } catch (StatusException e) {
                    failures++;
                    assertEquals(StatusCode.INVALID_ARGUMENT, e.code(), e.getMessage());
                    assertTrue(LOCATED.matcher(e.getMessage()).matches(), e.getMessage());
                }
            }
            assertTrue(failures > 1500, "mutations are rejected: " + failures);
        });
    }

    private static String mutate(String source, Random random) {
        StringBuilder b = new StringBuilder(source);
        int edits = 1 + random.nextInt(3);
        for (int k = 0; k < edits && !b.isEmpty(); k++) {
            int at = random.nextInt(b.length());
            switch (random.nextInt(5)) {
                case 0 -> b.deleteCharAt(at);
                case 1 -> b.insert(at, ALPHABET.charAt(random.nextInt(ALPHABET.length())));
                case 2 -> b.setCharAt(at, ALPHABET.charAt(random.nextInt(ALPHABET.length())));
                case 3 -> b.setLength(at);
                default -> b.delete(at, Math.min(b.length(), at + random.nextInt(12)));
            }
        }
        return b.toString();
    }
}
