package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Context;
import dev.ortho.vm.HostMemoryLimit;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import dev.ortho.vm.asm.Assembler;
import org.junit.jupiter.api.Test;

/**
 * Issue 15: a VM list could grow until the JVM heap was gone before RESOURCE_EXHAUSTED. A
 * context's {@link HostMemoryLimit} bounds the lists and buffers its programs allocate.
 */
class Issue15HostMemoryLimitTest {
    private static final String SOURCE = VmasmFixture.module("""
            vm.export @grow
            vm.func @grow(%i0: i32) -> (i32) {
            ^bb0:
              %i1 = vm.const.i32 0
              %r0 = vm.list.alloc %i1 : !vm.list<i32>
              %i2 = vm.const.i32 4096
              vm.br ^bb1()
            ^bb1:
              %i1 = vm.add.i32 %i1, %i2
              vm.list.resize %r0, %i1
              %i3 = vm.cmp.lt.i32.s %i1, %i0
              vm.cond_br %i3, ^bb1(), ^bb2()
            ^bb2:
              %i4 = vm.list.size %r0
              vm.discard.refs %r0
              vm.return %i4
            }

            vm.export @buffer
            vm.func @buffer(%i0:1: i64) -> (i64) {
            ^bb0:
              %i2 = vm.const.i32 16
              %r0 = vm.buffer.alloc %i0:1, %i2
              %i4:5 = vm.buffer.length %r0
              vm.discard.refs %r0
              vm.return %i4:5
            }
            """);

    private final Instance instance = new Instance();
    private final BytecodeModule module = VmasmFixture.create(instance,
            new Assembler(VmasmFixture.EXTENSIONS).assemble(SOURCE, "limit.vmasm"), VmasmFixture.EXTENSIONS);

    private static StatusException invoke(Context context, String function, Object argument) {
        VmList in = VmList.ofVariants(1);
        if (argument instanceof Integer i) {
            in.pushI32(i);
        } else {
            in.pushI64((Long) argument);
        }
        VmList out = VmList.ofVariants(1);
        try {
            Invocation.invoke(context, context.resolveFunction("t." + function), in, out);
            return null;
        } catch (StatusException e) {
            return e;
        } finally {
            in.release();
            out.release();
        }
    }

    @Test
    void aGrowingListFailsAtTheContextsLimitNamingLimitAndRequest() {
        HostMemoryLimit limit = HostMemoryLimit.of(1 << 20);
        try (Context context = Context.create(instance, limit, module)) {
            assertEquals(null, invoke(context, "grow", 64 * 1024)); // 512 KiB of i64 slots fits
            assertEquals(0, limit.used(), "the list's storage was given back when it was discarded");
            StatusException e = invoke(context, "grow", Integer.MAX_VALUE);
            assertEquals(StatusCode.RESOURCE_EXHAUSTED, e.code(), e.toString());
            assertTrue(e.baseMessage().startsWith("host memory limit of 1048576 bytes exceeded: growing vm.list<i32>"),
                    e.baseMessage());
            assertTrue(e.baseMessage().matches(".* needs [0-9]+ bytes with [0-9]+ in use"), e.baseMessage());
            assertEquals(0, limit.used(), "unwinding released the list");
        }
    }

    @Test
    void bufferAllocationsAreCountedAndGivenBack() {
        HostMemoryLimit limit = HostMemoryLimit.of(4096);
        try (Context context = Context.create(instance, limit, module)) {
            assertEquals(null, invoke(context, "buffer", 4096L));
            StatusException e = invoke(context, "buffer", 4097L);
            assertEquals(StatusCode.RESOURCE_EXHAUSTED, e.code());
            assertEquals("host memory limit of 4096 bytes exceeded: allocating a 4097 byte vm.buffer needs 4097 bytes"
                    + " with 0 in use", e.baseMessage());
            assertEquals(0, limit.used());
        }
    }

    @Test
    void forkedContextsShareTheLimitAndUnlimitedContextsCountNothing() {
        HostMemoryLimit limit = HostMemoryLimit.of(1000);
        try (Context context = Context.create(instance, limit, module); Context child = context.fork()) {
            assertEquals(limit, child.hostMemoryLimit());
        }
        try (Context context = Context.create(instance, module)) {
            assertEquals(HostMemoryLimit.UNLIMITED, context.hostMemoryLimit());
            assertEquals(null, invoke(context, "buffer", 1L << 20));
            assertEquals(0, HostMemoryLimit.UNLIMITED.used());
        }
    }

    @Test
    void listsGrowToExactlyTheLimitBeforeFailing() {
        HostMemoryLimit limit = HostMemoryLimit.of(8 * 100);
        VmList list = VmList.ofValues(dev.ortho.vm.ValueType.I64, 0, limit);
        list.reserve(64); // 512 bytes
        assertEquals(512, limit.used());
        list.reserve(100); // doubling to 128 would pass the limit: exactly 100 fits
        assertEquals(100, list.capacity());
        assertEquals(800, limit.used());
        StatusException e = assertThrows(StatusException.class, () -> list.reserve(101));
        assertEquals(StatusCode.RESOURCE_EXHAUSTED, e.code());
        assertEquals(800, limit.used(), "a failed growth charges nothing");
        VmBuffer buffer = VmBuffer.allocate(VmBuffer.ACCESS_MUTABLE, 0, 16, limit);
        list.release();
        buffer.release();
        assertEquals(0, limit.used());
        assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class, () -> HostMemoryLimit.of(-1)).code());
    }
}
