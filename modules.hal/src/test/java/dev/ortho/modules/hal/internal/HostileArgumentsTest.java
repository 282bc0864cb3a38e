package dev.ortho.modules.hal.internal;

import static dev.ortho.modules.hal.internal.Harness.p;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ortho.base.StatusException;
import dev.ortho.hal.ElementType;
import dev.ortho.hal.EncodingType;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A hostile program: every export is called many times with arguments drawn from edge values
 * (negative, zero, huge, unaligned) and refs of every type (including null and the wrong ones),
 * with variadic counts that are sometimes inconsistent with the slots passed. Each call must
 * either succeed or fail with a {@link StatusException}; nothing else may escape (no
 * IndexOutOfBounds, ClassCast, NullPointer or IllegalArgument from the JDK).
 *
 * <p>Refs are chosen so that nothing can block: every fence is already signalled or failed, and
 * no executable is offered (a random dispatch could ask for billions of workgroups).
 */
class HostileArgumentsTest {
    static final long[] VALUES = {0, 1, 2, 3, 4, 7, 8, 16, 63, 64, 65, -1, -2, -4, 0x7FFF_FFFF_FFFF_FFF0L,
            Long.MAX_VALUE, Long.MIN_VALUE, 0xFFFF_FFFFL, 1L << 31, ElementType.FLOAT_32,
            EncodingType.DENSE_ROW_MAJOR};
    static final int[] COUNTS = {0, 1, 2, 3, 5, -1, 40};
    static final int ROUNDS = 40;

    @Test
    void everyExportFailsCleanlyOnHostileArguments() {
        Random random = new Random(0x5EED_8A1L);
        try (Harness h = new Harness((key, views) -> { })) {
            List<RefObject> pool = new ArrayList<>();
            List<RefObject> owned = new ArrayList<>();
            RefObject device = own(owned, h.call("devices.get", p(0)).takeRef(0));
            RefObject allocator = own(owned, h.call("device.allocator", p(), device).takeRef(0));
            RefObject buffer = own(owned, h.call("allocator.allocate", p(-1, AllocatorAndBufferExportsTest.HOST,
                    AllocatorAndBufferExportsTest.USAGE, 64), allocator).takeRef(0));
            RefObject subspan = own(owned, h.call("buffer.subspan", p(8, 16), buffer).takeRef(0));
            RefObject view = own(owned, h.call("buffer_view.create",
                    p(0, 64, ElementType.FLOAT_32, EncodingType.DENSE_ROW_MAJOR, 1, 16), buffer).takeRef(0));
            RefObject signalled = own(owned, h.call("fence.create", p(0), device).takeRef(0));
            h.run("fence.signal", p(), signalled);
            RefObject failed = own(owned, h.call("fence.create", p(0), device).takeRef(0));
            h.run("fence.fail", p(13), failed);
            RefObject recording = own(owned, h.call("command_buffer.create", p(0, 3, -1, 4), device).takeRef(0));
            VmBuffer bytes = (VmBuffer) own(owned, Harness.bytes(new byte[64]));
            VmBuffer constant = (VmBuffer) own(owned, VmBuffer.allocate(0, 64, 64));
            RefObject file = own(owned, h.call("ex.file.from_memory", p(-1, 1, 0, 64, 0), device, bytes).takeRef(0));
            pool.addAll(Arrays.asList(null, device, allocator, buffer, subspan, view, signalled, failed, recording,
                    bytes, constant, file));

            int succeeded = 0;
            int failedCleanly = 0;
            for (Map.Entry<String, String> export : IreeHalExports.table().entrySet()) {
                String types = export.getValue().substring(1, export.getValue().indexOf('_'));
                for (int round = 0; round < ROUNDS; round++) {
                    List<Long> prims = new ArrayList<>();
                    List<RefObject> refs = new ArrayList<>();
                    fill(types, random, pool, prims, refs);
                    long[] primArray = prims.stream().mapToLong(Long::longValue).toArray();
                    RefObject[] refArray = refs.toArray(RefObject[]::new);
                    try {
                        h.call(export.getKey(), primArray, refArray).close();
                        succeeded++;
                    } catch (StatusException expected) {
                        failedCleanly++;
                    } catch (Throwable t) {
                        fail("hal." + export.getKey() + " with prims " + Arrays.toString(primArray) + " refs "
                                + Arrays.toString(refArray) + " threw " + t, t);
                    }
                }
            }
            assertTrue(succeeded > 100 && failedCleanly > 100, "both outcomes must be exercised: "
                    + succeeded + " succeeded, " + failedCleanly + " failed");
            // the pool is still usable: nothing was corrupted or released too often
            HalRefs.buffer(buffer).byteLength();
            for (int i = owned.size() - 1; i >= 0; i--) {
                owned.get(i).release();
            }
        }
    }

    private static RefObject own(List<RefObject> owned, RefObject ref) {
        owned.add(ref);
        return ref;
    }

    /** Appends argument slots for {@code types}, with random values, refs and span counts. */
    private static void fill(String types, Random random, List<RefObject> pool, List<Long> prims,
            List<RefObject> refs) {
        for (int i = 0; i < types.length(); i++) {
            char t = types.charAt(i);
            if (t == 'v') {
                continue;
            }
            if (t == 'C') {
                int end = types.indexOf('D', i);
                String tuple = types.substring(i + 1, end);
                int count = COUNTS[random.nextInt(COUNTS.length)];
                prims.add((long) count);
                // usually consistent with the count; sometimes a tuple short or long
                int tuples = Math.max(0, count) + (random.nextInt(8) == 0 ? random.nextInt(3) - 1 : 0);
                for (int k = 0; k < Math.max(0, tuples); k++) {
                    fill(tuple, random, pool, prims, refs);
                }
                i = end;
            } else if (t == 'r') {
                refs.add(pool.get(random.nextInt(pool.size())));
            } else {
                prims.add(VALUES[random.nextInt(VALUES.length)]);
            }
        }
    }
}
