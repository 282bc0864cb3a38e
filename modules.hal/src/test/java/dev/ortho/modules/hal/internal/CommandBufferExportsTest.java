package dev.ortho.modules.hal.internal;

import static dev.ortho.modules.hal.internal.Harness.p;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandBufferMode;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.ExecutionStage;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CommandBufferExportsTest {
    static final long ANY = CommandCategory.ANY;
    static final long ONE_SHOT = CommandBufferMode.ONE_SHOT;

    Harness h;
    RefObject device;
    RefObject allocator;
    RefObject a;
    RefObject b;

    @BeforeEach
    void setUp() {
        h = new Harness();
        device = h.call("devices.get", p(0)).takeRef(0);
        allocator = h.call("device.allocator", p(), device).takeRef(0);
        a = allocate(64);
        b = allocate(64);
    }

    @AfterEach
    void tearDown() {
        a.release();
        b.release();
        allocator.release();
        device.release();
        h.close();
    }

    RefObject allocate(long size) {
        return h.call("allocator.allocate", p(-1, AllocatorAndBufferExportsTest.HOST,
                AllocatorAndBufferExportsTest.USAGE, size), allocator).takeRef(0);
    }

    RefObject commandBuffer(long mode, int bindingCapacity) {
        return h.call("command_buffer.create", p(mode, ANY, -1, bindingCapacity), device).takeRef(0);
    }

    void execute(RefObject commandBuffer) {
        h.run("device.queue.execute", p(-1, 0), device, null, null, commandBuffer);
    }

    int load(RefObject buffer, long offset) {
        return h.call("buffer.load", p(offset, 4), buffer).i32(0);
    }

    void storeF32(RefObject buffer, int index, float value) {
        h.run("buffer.store", p(Float.floatToRawIntBits(value), 4L * index, 4), buffer);
    }

    float loadF32(RefObject buffer, int index) {
        return Float.intBitsToFloat(load(buffer, 4L * index));
    }

    @Test
    void createBeginsRecordingAndFinalizeEndsIt() {
        RefObject cb = commandBuffer(ONE_SHOT, 3);
        VmBuffer label = Harness.string("outer");
        try {
            CommandBuffer hal = HalRefs.commandBuffer(cb);
            assertEquals(CommandBufferMode.ONE_SHOT, hal.mode());
            assertEquals(3, hal.bindingCapacity());
            h.run("command_buffer.begin_debug_group", p(), cb, label);
            h.run("command_buffer.execution_barrier",
                    p(ExecutionStage.COMMAND_RETIRE, ExecutionStage.COMMAND_ISSUE, 0), cb);
            h.run("command_buffer.end_debug_group", p(), cb);
            h.run("command_buffer.finalize", p(), cb);
            h.fails(StatusCode.FAILED_PRECONDITION, "command_buffer.fill_buffer", p(0, 4, 0, 0, 1, 0), cb, a);
            execute(cb);
            h.fails(StatusCode.FAILED_PRECONDITION, "device.queue.execute", p(-1, 0), device, null, null, cb);
        } finally {
            label.release();
            cb.release();
        }
        h.fails(StatusCode.INVALID_ARGUMENT, "command_buffer.create", p(0, 0, -1, 0), device);
        h.fails(StatusCode.INVALID_ARGUMENT, "command_buffer.create", p(0, ANY, -1, 0), allocator);
        h.fails(StatusCode.INVALID_ARGUMENT, "command_buffer.finalize", p(), device);
    }

    @Test
    void fillUpdateAndCopyRunInOrderWhenExecuted() {
        RefObject cb = commandBuffer(ONE_SHOT, 0);
        VmBuffer source = Harness.bytes(new byte[] {0, 0, 1, 2, 3, 4, 5, 6, 7, 8});
        try {
            h.run("command_buffer.fill_buffer", p(0, 16, 0, 0xAB, 1, 0), cb, a);
            h.run("command_buffer.update_buffer", p(2, 16, 8, 0, 0), cb, source, a);
            h.run("command_buffer.execution_barrier",
                    p(ExecutionStage.TRANSFER, ExecutionStage.TRANSFER, 0), cb);
            h.run("command_buffer.copy_buffer", p(0, 0, 0, 8, 24, 0), cb, a, b);
            h.run("command_buffer.advise_buffer", p(0, 0, 0, 0), cb, b);
            h.run("command_buffer.finalize", p(), cb);
            assertEquals(0, load(b, 8), "nothing runs before submission");
            execute(cb);
            assertEquals(0xABABABAB, load(a, 0));
            assertEquals(0x04030201, load(a, 16));
            assertEquals(0x08070605, load(a, 20));
            assertEquals(0xABABABAB, load(b, 8));
            assertEquals(0x04030201, load(b, 24));
        } finally {
            source.release();
            cb.release();
        }
    }

    @Test
    void recordingArgumentsAreChecked() {
        RefObject cb = commandBuffer(ONE_SHOT, 1);
        VmBuffer source = Harness.bytes(new byte[8]);
        try {
            h.fails(StatusCode.INVALID_ARGUMENT, "command_buffer.fill_buffer", p(0, 6, 0, 0, 3, 0), cb, a);
            StatusException update = h.fails(StatusCode.OUT_OF_RANGE, "command_buffer.update_buffer",
                    p(4, 0, 8, 0, 0), cb, source, a);
            assertTrue(update.getMessage().contains("update source range"), update.getMessage());
            h.fails(StatusCode.INVALID_ARGUMENT, "command_buffer.update_buffer", p(0, 0, 8, 0, 0), cb, a, a);
            h.fails(StatusCode.INVALID_ARGUMENT, "command_buffer.copy_buffer", p(0, 0, 0, 0, 8, 0), cb, device, b);
            h.fails(StatusCode.INVALID_ARGUMENT, "command_buffer.fill_buffer", p(0, 4, -1, 0, 4, 0), cb, null);
            h.fails(StatusCode.OUT_OF_RANGE, "command_buffer.fill_buffer", p(0, 4, 5, 0, 4, 0), cb, null);
            h.fails(StatusCode.INVALID_ARGUMENT, "command_buffer.advise_buffer", p(0, 0, 0, 0), cb, device);
            h.fails(StatusCode.INVALID_ARGUMENT, "command_buffer.begin_debug_group", p(), cb, null);
            h.fails(StatusCode.INVALID_ARGUMENT, "command_buffer.collective",
                    p(0, 0, 0, 0, 0, 0, 0, 0, 0), cb, null, a, b);
            h.fails(StatusCode.INVALID_ARGUMENT, "command_buffer.collective",
                    p(0, 0, 0, 0, 0, 0, 0, 0, 0), cb, device, a, b);
        } finally {
            source.release();
            cb.release();
        }
    }

    @Test
    void indirectReferencesResolveAgainstTheBindingTableAtSubmission() {
        RefObject cb = commandBuffer(0, 2);
        try {
            h.run("command_buffer.fill_buffer", p(0, 32, 0, 0x11223344, 4, 0), cb, null);
            h.run("command_buffer.execution_barrier",
                    p(ExecutionStage.TRANSFER, ExecutionStage.TRANSFER, 0), cb);
            h.run("command_buffer.copy_buffer", p(0, 1, 0, 0, 32, 0), cb, null, null);
            h.run("command_buffer.finalize", p(), cb);
            // slot 0 = a[16, 48), slot 1 = b[0, 64)
            h.run("device.queue.execute.indirect", p(-1, 0, 2, 16, 32, 0, 64), device, null, null, cb, a, b);
            assertEquals(0, load(a, 12));
            assertEquals(0x11223344, load(a, 16));
            assertEquals(0x11223344, load(a, 44));
            assertEquals(0x11223344, load(b, 28));
            assertEquals(0, load(b, 32));
            // reusable: run again with the slots swapped
            h.run("buffer.store", p(0, 0, 4), b);
            h.run("device.queue.execute.indirect", p(-1, 0, 2, 0, 64, 0, 64), device, null, null, cb, b, a);
            assertEquals(0x11223344, load(b, 0));
            h.fails(StatusCode.INVALID_ARGUMENT, "device.queue.execute.indirect", p(-1, 0, 2, 0, 64), device,
                    null, null, cb, b, a);
            h.fails(StatusCode.INVALID_ARGUMENT, "device.queue.execute.indirect", p(-1, 0, 1, 0, 64), device,
                    null, null, cb, device);
        } finally {
            cb.release();
        }
    }

    RefObject builtinExecutable() {
        VmBuffer format = Harness.string("jvm-static");
        VmBuffer data = Harness.string("library=builtin\n");
        try {
            return h.call("executable.create", p(-1), device, format, data, null).takeRef(0);
        } finally {
            format.release();
            data.release();
        }
    }

    long function(RefObject executable, String name) {
        VmBuffer nameBuffer = Harness.string(name);
        try {
            return h.call("executable.lookup.function", p(), executable, nameBuffer).i64(0);
        } finally {
            nameBuffer.release();
        }
    }

    @Test
    void dispatchPassesConstantsAndDirectAndSlotBindings() {
        RefObject executable = builtinExecutable();
        RefObject out = allocate(16);
        RefObject cb = commandBuffer(ONE_SHOT, 1);
        try {
            for (int i = 0; i < 4; i++) {
                storeF32(a, i, i + 1);
                storeF32(b, i, 10 * (i + 1));
            }
            long add = function(executable, "add_f32");
            // (reserved, slot, buffer, offset, length): lhs direct, rhs through slot 0, out direct
            h.run("command_buffer.dispatch", p(add, 1, 1, 1, 0, /* constants */ 1, 4, /* bindings */ 3,
                    0, 0, 0, 16, 0, 0, 0, 16, 0, 0, 0, 16), cb, executable, a, null, out);
            h.run("command_buffer.finalize", p(), cb);
            h.run("device.queue.execute.indirect", p(-1, 0, 1, 0, 64), device, null, null, cb, b);
            for (int i = 0; i < 4; i++) {
                assertEquals(11f * (i + 1), loadF32(out, i));
            }
        } finally {
            cb.release();
            out.release();
            executable.release();
        }
    }

    @Test
    void indirectDispatchReadsWorkgroupCountsFromABuffer() {
        RefObject executable = builtinExecutable();
        RefObject counts = allocate(12);
        RefObject cb = commandBuffer(ONE_SHOT, 0);
        try {
            h.run("buffer.store", p(1, 0, 4), counts);
            h.run("buffer.store", p(1, 4, 4), counts);
            h.run("buffer.store", p(1, 8, 4), counts);
            for (int i = 0; i < 8; i++) {
                storeF32(a, i, i);
                storeF32(b, i, 2);
            }
            long mul = function(executable, "mul_f32");
            h.run("command_buffer.dispatch.indirect", p(mul, 0, 0, 0, /* constants */ 1, 8, /* bindings */ 3,
                    0, 0, 0, 32, 0, 0, 0, 32, 0, 0, 32, 32), cb, executable, counts, a, b, a);
            h.run("command_buffer.finalize", p(), cb);
            execute(cb);
            for (int i = 0; i < 8; i++) {
                assertEquals(2f * i, loadF32(a, 8 + i));
            }
        } finally {
            cb.release();
            counts.release();
            executable.release();
        }
    }

    @Test
    void dispatchRejectsBadExecutablesFunctionsBindingCountsAndLayouts() {
        RefObject executable = builtinExecutable();
        RefObject cb = commandBuffer(ONE_SHOT, 0);
        try {
            h.fails(StatusCode.INVALID_ARGUMENT, "command_buffer.dispatch", p(0, 1, 1, 1, 0, 0, 0), cb, a);
            h.fails(StatusCode.OUT_OF_RANGE, "command_buffer.dispatch", p(-1, 1, 1, 1, 0, 0, 0), cb, executable);
            h.fails(StatusCode.OUT_OF_RANGE, "command_buffer.dispatch", p(1L << 40, 1, 1, 1, 0, 0, 0), cb,
                    executable);
            long[] prims = new long[7 + 4 * 33];
            prims[6] = 33;
            RefObject[] refs = new RefObject[2 + 33];
            refs[0] = cb;
            refs[1] = executable;
            Arrays.fill(refs, 2, refs.length, a);
            StatusException tooMany = h.fails(StatusCode.OUT_OF_RANGE, "command_buffer.dispatch", prims, refs);
            assertTrue(tooMany.getMessage().contains("binding count 33 > 32"), tooMany.getMessage());
            h.fails(StatusCode.INVALID_ARGUMENT, "command_buffer.dispatch", p(0, 1, 1, 1, 0, 2, 7, 0), cb,
                    executable);
            h.fails(StatusCode.INVALID_ARGUMENT, "command_buffer.dispatch.indirect", p(0, 0, 0, 0, 0, 1), cb,
                    executable, null);
            h.fails(StatusCode.INVALID_ARGUMENT, "command_buffer.dispatch.indirect", p(0, 0, 0, 0, 0, 0), cb,
                    executable, device);
        } finally {
            cb.release();
            executable.release();
        }
    }
}
