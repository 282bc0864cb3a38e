package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.vm.AbstractRefObject;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.CallingConvention;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.RefType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The interpreter marshals import arguments by a per-import plan ({@link ImportPlan}); it must
 * fill the call buffer exactly as decoding the type string argument by argument does (the path
 * still taken for what the plan does not cover), for every kind of argument, span counts
 * including 0, and moved as well as borrowed refs.
 */
class ImportPlanTest {
    private static final RefType TYPE = RefType.of("test.thing", Thing.class);

    private static final class Thing extends AbstractRefObject {
        int destroyed;

        @Override
        public RefType refType() {
            return TYPE;
        }

        @Override
        protected void destroy() {
            destroyed++;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rIIiiCID", "iICrD", "rIrrIiiII", "rrr", "CrIID", "rIrrrICrIID", "rriiCID", "i", "",
        "fFCfFrD"})
    void planFillsTheCallBufferAsDecodingDoes(String types) {
        ImportPlan plan = ImportPlan.of(types);
        assertTrue(plan.usable, types);
        assertSame(types, plan.types);
        Random random = new Random(types.hashCode());
        for (int count = 0; count <= 3; count++) {
            for (int trial = 0; trial < 20; trial++) {
                int[] r = new int[64];
                for (int i = 0; i < r.length; i++) {
                    r[i] = random.nextInt();
                }
                Thing[] things = new Thing[16];
                RefObject[] planned = new RefObject[16];
                RefObject[] decoded = new RefObject[16];
                for (int i = 0; i < things.length; i++) {
                    things[i] = random.nextInt(4) == 0 ? null : new Thing();
                    planned[i] = things[i];
                    decoded[i] = things[i];
                }
                byte[] c = callSite(types, count, random);
                CallBuffer a = sized(types, count);
                CallBuffer b = sized(types, count);
                assertTrue(InterpreterCalls.marshalPlanned(plan, c, 0, SEGMENTS_BYTES, r, planned, a));
                InterpreterCalls.marshalImportArguments(types, c, 0, SEGMENTS_BYTES, r, decoded, b);
                assertEquals(b.primitiveCount(), a.primitiveCount(), types);
                assertEquals(b.refCount(), a.refCount(), types);
                for (int i = 0; i < a.primitiveCount(); i++) {
                    assertEquals(b.bits(i), a.bits(i), types + " primitive slot " + i + " with " + count + " tuples");
                }
                for (int i = 0; i < a.refCount(); i++) {
                    assertSame(b.ref(i), a.ref(i), types + " ref slot " + i + " with " + count + " tuples");
                }
                for (int i = 0; i < things.length; i++) {
                    assertSame(decoded[i], planned[i], "register " + i + " after marshalling " + types);
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"CiDCiirIID", "CiDi", "rCrDr"})
    void twoSpansOrArgumentsAfterTheSpanAreLeftToDecoding(String types) {
        assertFalse(ImportPlan.of(types).usable, types);
    }

    private static final int SEGMENTS_BYTES = 64;

    /** A segment list at 0 (every span of {@code count} tuples) and the register list at {@link #SEGMENTS_BYTES}. */
    private static byte[] callSite(String types, int count, Random random) {
        ByteBuffer c = ByteBuffer.allocate(1024).order(ByteOrder.LITTLE_ENDIAN);
        int items = 0;
        int registers = 0;
        for (int i = 0; i < types.length(); i++, items++) {
            if (types.charAt(i) == 'C') {
                int end = types.indexOf('D', i);
                registers += count * (end - i - 1);
                i = end;
            } else {
                registers++;
            }
        }
        c.putShort(0, (short) items);
        for (int k = 0; k < items; k++) {
            c.putShort(2 + 2 * k, (short) count);
        }
        c.putShort(SEGMENTS_BYTES, (short) registers);
        int reg = 0;
        for (int i = 0; i < types.length(); i++) {
            char t = types.charAt(i);
            if (t == 'C') {
                int end = types.indexOf('D', i);
                for (int k = 0; k < count; k++) {
                    for (int j = i + 1; j < end; j++) {
                        c.putShort(SEGMENTS_BYTES + 2 + 2 * reg++, register(types.charAt(j), random));
                    }
                }
                i = end;
            } else {
                c.putShort(SEGMENTS_BYTES + 2 + 2 * reg++, register(t, random));
            }
        }
        return c.array();
    }

    private static short register(char type, Random random) {
        if (type == 'r') {
            int ref = random.nextInt(16) | Interpreter.TYPE_BIT;
            return (short) (random.nextInt(3) == 0 ? ref | Interpreter.MOVE_BIT : ref);
        }
        return (short) (type == 'I' || type == 'F' ? 2 * random.nextInt(31) : random.nextInt(64));
    }

    /** A buffer sized as the interpreter sizes it before marshalling (variadic ones are sized by the marshaller). */
    private static CallBuffer sized(String types, int count) {
        CallBuffer out = new CallBuffer();
        CallingConvention.Fragment fragment = CallingConvention.parse("0" + (types.isEmpty() ? "v" : types) + "_v")
                .arguments();
        if (!fragment.isVariadic()) {
            out.resize(fragment.primitiveSlots(), fragment.refSlots());
        }
        return out;
    }
}
