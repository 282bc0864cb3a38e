package dev.ortho.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MemoryPoolTest {

    private static void assertStatus(StatusCode code, Runnable action) {
        StatusException e = assertThrows(StatusException.class, action::run);
        assertEquals(code, e.code(), e.getMessage());
    }

    @Test
    void blocksAreAlignedPowerOfTwoSizedAndZeroed() {
        try (MemoryPool pool = new MemoryPool("test", 1 << 20)) {
            for (long size : new long[] {0, 1, 63, 64, 65, 1000, 4096, 100_000}) {
                MemoryPool.Block b = pool.allocate(size, 1, true);
                assertEquals(0, b.segment().address() % MemoryPool.ALIGNMENT, "size " + size);
                assertEquals(Math.max(64, Long.highestOneBit(Math.max(size - 1, 1)) << 1), b.capacity(), "size " + size);
                assertEquals(size, b.segment(size).byteSize());
                assertTrue(b.isPooled());
                b.free();
            }
        }
    }

    @Test
    void freedBlockIsReusedByTheNextAllocationOfItsClassAndZeroedAgain() {
        try (MemoryPool pool = new MemoryPool("test", 1 << 20)) {
            MemoryPool.Block first = pool.allocate(100, 16, true);
            first.segment(100).fill((byte) 7);
            MemorySegment kept = first.segment(100);
            first.free();
            assertEquals(128, pool.idleBytes());
            MemoryPool.Block second = pool.allocate(128, 64, true);
            assertSame(first, second, "same size class");
            assertEquals(0, pool.idleBytes());
            for (long i = 0; i < 128; i++) {
                assertEquals(0, second.segment().get(ValueLayout.JAVA_BYTE, i), "byte " + i);
            }
            assertTrue(kept.scope().isAlive(), "memory stays mapped while the pool holds the block");
            MemoryPool.Block other = pool.allocate(200, 64, true);
            assertNotEquals(first.segment().address(), other.segment().address(), "another size class");
            second.free();
            other.free();
        }
    }

    @Test
    void sliceOfTheSameLengthIsNotAllocatedAgain() {
        try (MemoryPool pool = new MemoryPool("test", 1 << 20)) {
            MemoryPool.Block b = pool.allocate(40, 8, true);
            assertSame(b.segment(40), b.segment(40));
            b.free();
        }
    }

    @Test
    void retentionLimitClosesBlocksBeyondIt() {
        try (MemoryPool pool = new MemoryPool("test", 1024)) {
            List<MemoryPool.Block> blocks = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                blocks.add(pool.allocate(256, 64, true));
            }
            for (MemoryPool.Block b : blocks) {
                b.free();
            }
            assertEquals(1024, pool.idleBytes(), "four 256-byte blocks fit a 1024-byte limit");
            long closed = blocks.stream().filter(b -> !b.segment().scope().isAlive()).count();
            assertEquals(1, closed, "the fifth block was closed at its free");
            MemoryPool.Block big = pool.allocate(2048, 64, true);
            big.free();
            assertFalse(big.segment().scope().isAlive(), "a block larger than the limit is never retained");
        }
    }

    @Test
    void zeroLimitRetainsNothing() {
        try (MemoryPool pool = new MemoryPool("test", 0)) {
            MemoryPool.Block b = pool.allocate(64, 64, true);
            assertFalse(b.isPooled());
            b.free();
            assertFalse(b.segment().scope().isAlive());
            assertEquals(0, pool.idleBytes());
        }
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> new MemoryPool("bad", -1));
    }

    @Test
    void largeOrStrictlyAlignedRequestsGetBlocksOfTheirOwn() {
        try (MemoryPool pool = new MemoryPool("test", Long.MAX_VALUE)) {
            MemoryPool.Block large = pool.allocate(MemoryPool.MAX_POOLED_SIZE + 1, 64, true);
            assertFalse(large.isPooled());
            assertEquals(MemoryPool.MAX_POOLED_SIZE + 1, large.capacity());
            MemoryPool.Block aligned = pool.allocate(100, 4096, true);
            assertFalse(aligned.isPooled());
            assertEquals(0, aligned.segment().address() % 4096);
            large.free();
            aligned.free();
            assertFalse(large.segment().scope().isAlive());
            assertFalse(aligned.segment().scope().isAlive());
            assertEquals(0, pool.idleBytes());
        }
    }

    @Test
    void trimAndCloseGiveIdleMemoryBackButLeaveLiveBlocksAlone() {
        MemoryPool pool = new MemoryPool("test", 1 << 20);
        MemoryPool.Block idle = pool.allocate(64, 64, true);
        MemoryPool.Block live = pool.allocate(64, 64, true);
        idle.free();
        pool.trim();
        assertFalse(idle.segment().scope().isAlive());
        assertEquals(0, pool.idleBytes());

        MemoryPool.Block idleAgain = pool.allocate(1000, 64, true);
        idleAgain.free();
        pool.close();
        assertTrue(pool.isClosed());
        assertFalse(idleAgain.segment().scope().isAlive(), "close frees idle blocks");
        live.segment().set(ValueLayout.JAVA_INT, 0, 9);
        assertEquals(9, live.segment().get(ValueLayout.JAVA_INT, 0), "a live block outlives the close");
        live.free();
        assertFalse(live.segment().scope().isAlive(), "freed into a closed pool, a block is closed at once");

        MemoryPool.Block after = pool.allocate(64, 64, true);
        assertFalse(after.isPooled(), "a closed pool still allocates, without pooling");
        after.free();
        assertFalse(after.segment().scope().isAlive());
        pool.close(); // idempotent
    }

    @Test
    void doubleFreeFailsWithFailedPrecondition() {
        try (MemoryPool pool = new MemoryPool("test", 1 << 20)) {
            MemoryPool.Block pooled = pool.allocate(64, 64, true);
            pooled.free();
            assertStatus(StatusCode.FAILED_PRECONDITION, pooled::free);
            pool.trim();
            assertStatus(StatusCode.FAILED_PRECONDITION, pooled::free);
        }
        MemoryPool.Block own = MemoryPool.allocateUnpooled(64, 8);
        own.free();
        assertStatus(StatusCode.FAILED_PRECONDITION, own::free);
    }

    @Test
    void badRequestsAreInvalidArgumentAndOutOfMemoryIsResourceExhaustedNamingTheSize() {
        try (MemoryPool pool = new MemoryPool("allocator 'x'", 1 << 20)) {
            assertStatus(StatusCode.INVALID_ARGUMENT, () -> pool.allocate(-1, 64, true));
            assertStatus(StatusCode.INVALID_ARGUMENT, () -> pool.allocate(8, 3, true));
            assertStatus(StatusCode.INVALID_ARGUMENT, () -> MemoryPool.allocateUnpooled(8, 0));
            long huge = 1L << 60;
            StatusException e = assertThrows(StatusException.class, () -> pool.allocate(huge, 64, true));
            assertEquals(StatusCode.RESOURCE_EXHAUSTED, e.code());
            assertTrue(e.getMessage().contains("allocator 'x' cannot allocate " + huge + " bytes"), e.getMessage());
            e = assertThrows(StatusException.class, () -> MemoryPool.allocateUnpooled(huge, 64));
            assertEquals(StatusCode.RESOURCE_EXHAUSTED, e.code());
            assertTrue(e.getMessage().contains(Long.toString(huge)), e.getMessage());
        }
    }

    @Test
    void concurrentAllocateAndFreeNeverHandOneBlockToTwoOwners() throws Exception {
        int threads = 4;
        int rounds = 20_000;
        try (MemoryPool pool = new MemoryPool("test", 1 << 20)) {
            ExecutorService executor = Executors.newFixedThreadPool(threads);
            try {
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int id = t + 1;
                    futures.add(executor.submit(() -> {
                        start.await();
                        List<MemoryPool.Block> held = new ArrayList<>();
                        for (int i = 0; i < rounds; i++) {
                            long size = 64L << (i % 3);
                            MemoryPool.Block b = pool.allocate(size, 64, true);
                            MemorySegment s = b.segment(size);
                            assertEquals(0, s.get(ValueLayout.JAVA_LONG, size - 8), "handed out zeroed");
                            s.set(ValueLayout.JAVA_LONG, 0, id);
                            s.set(ValueLayout.JAVA_LONG, size - 8, id);
                            held.add(b);
                            if (held.size() > 3 || i % 7 == 0) {
                                MemoryPool.Block old = held.remove(0);
                                MemorySegment o = old.segment();
                                assertEquals(id, o.get(ValueLayout.JAVA_LONG, 0), "no other owner wrote the block");
                                o.set(ValueLayout.JAVA_LONG, 0, 0);
                                o.set(ValueLayout.JAVA_LONG, old.capacity() - 8, 0);
                                old.free();
                            }
                        }
                        for (MemoryPool.Block b : held) {
                            b.segment().fill((byte) 0);
                            b.free();
                        }
                        return null;
                    }));
                }
                for (Future<?> f : futures) {
                    f.get(60, TimeUnit.SECONDS);
                }
            } finally {
                executor.shutdownNow();
            }
            long idle = pool.idleBytes();
            assertTrue(idle > 0 && idle <= 1 << 20, "idle bytes " + idle);
            Set<Long> addresses = new HashSet<>();
            List<MemoryPool.Block> all = new ArrayList<>();
            for (int i = 0; i < 3 * MemoryPool.MAX_SLOTS; i++) {
                MemoryPool.Block b = pool.allocate(64, 64, false);
                all.add(b);
                if (!addresses.add(b.segment().address())) {
                    throw new AssertionError("block at 0x" + Long.toHexString(b.segment().address())
                            + " handed out twice");
                }
            }
            all.forEach(MemoryPool.Block::free);
        }
    }
}
