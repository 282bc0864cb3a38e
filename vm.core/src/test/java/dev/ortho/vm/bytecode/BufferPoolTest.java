package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.vm.Context;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * {@code vm.buffer.alloc} and {@code vm.buffer.clone} take their memory from the context's
 * {@link Context#bufferPool()}: freeing a buffer in a call hands its block to the next call's
 * buffer instead of closing a shared arena per buffer (what made the data-tiled VMVX models slow).
 */
class BufferPoolTest {
    private static final String SOURCE = VmasmFixture.module("""
            vm.export @scratch
            vm.func @scratch(%i0:1: i64) -> (i64) {
            ^bb0:
              %i2 = vm.const.i32 16
              %r0 = vm.buffer.alloc %i0:1, %i2
              %i4:5 = vm.const.i64 0
              %i6:7 = vm.const.i64 7
              vm.buffer.store.i64 %i6:7, %r0, %i4:5
              %r1 = vm.buffer.clone %r0, %i4:5, %i0:1, %i2
              %i8:9 = vm.buffer.load.i64 %r1, %i4:5
              vm.discard.refs %r0, %r1
              vm.return %i8:9
            }

            vm.export @keep
            vm.func @keep(%i0:1: i64) -> (!vm.buffer) {
            ^bb0:
              %i2 = vm.const.i32 64
              %r0 = vm.buffer.alloc %i0:1, %i2
              vm.return %R0
            }
            """);

    @Test
    void allocAndCloneRecycleBlocksOfTheContextsPool() {
        try (VmasmFixture f = new VmasmFixture(SOURCE)) {
            assertEquals(7L, f.call("scratch", 1000L).getI64(0));
            assertEquals(2 * 1024, f.context.bufferPool().idleBytes(), "both 1000-byte buffers went back to the pool");
            for (int i = 0; i < 100; i++) {
                assertEquals(7L, f.call("scratch", 1000L).getI64(0), "reused memory is zeroed before use");
            }
            assertEquals(2 * 1024, f.context.bufferPool().idleBytes(), "every call reused the same two blocks");
        }
    }

    @Test
    void bufferReturnedToTheHostOutlivesTheContextAndItsPool() {
        VmList out;
        MemorySegment memory;
        Context context;
        try (VmasmFixture f = new VmasmFixture(SOURCE)) {
            context = f.context;
            out = f.call("keep", 100L);
            VmBuffer kept = (VmBuffer) out.getRef(0);
            memory = kept.segment();
            assertEquals(0, memory.address() % 64);
            assertSame(f.context.bufferPool(), f.context.bufferPool());
        }
        assertTrue(context.bufferPool().isClosed(), "closing the context closed its pool");
        assertEquals(0, context.bufferPool().idleBytes());
        VmBuffer kept = (VmBuffer) out.getRef(0);
        kept.storeI32(24, 5);
        assertEquals(5, kept.loadI32(24));
        assertEquals(1, kept.refCount(), "only the output list holds the buffer");
        out.release();
        assertFalse(memory.scope().isAlive(), "freed after its pool closed, the memory went back to the system");
    }

    @Test
    void forkedContextsHaveTheirOwnPool() {
        try (VmasmFixture f = new VmasmFixture(SOURCE); Context child = f.context.fork()) {
            assertNotSame(f.context.bufferPool(), child.bufferPool());
        }
    }
}
