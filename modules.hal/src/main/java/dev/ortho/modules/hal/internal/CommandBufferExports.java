package dev.ortho.modules.hal.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.DispatchFlags;
import dev.ortho.hal.Executable;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.NativeCall;
import dev.ortho.vm.VmBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * {@code hal.command_buffer.*}: create (and begin), record transfers, barriers and dispatches,
 * finalize. Buffer arguments that are null refer to binding-table slots ({@code *_slot}) resolved
 * at {@code device.queue.execute.indirect}.
 */
final class CommandBufferExports {
    /** Most bindings one dispatch may pass (IREE's IREE_HAL_MODULE_MAX_DESCRIPTOR_BINDING_COUNT). */
    static final int MAX_DISPATCH_BINDINGS = 32;

    private static final ValueLayout.OfInt I32_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private CommandBufferExports() {
    }

    private static CommandBuffer commandBuffer(CallBuffer args) {
        return Args.deref(args, 0, HalTypes.COMMAND_BUFFER, CommandBuffer.class);
    }

    /** A reference to the buffer in {@code refSlot}, or to binding-table {@code slot} if that ref is null. */
    private static BufferRef bufferRef(CallBuffer args, int refSlot, int slot, long offset, long length) {
        Buffer buffer = Args.derefOrNull(args, refSlot, HalTypes.BUFFER, Buffer.class);
        return new BufferRef(buffer == null ? slot : 0, buffer, offset, length);
    }

    /**
     * {@code command_buffer.create(device, modes, command_categories, queue_affinity,
     * binding_capacity) -> command_buffer}, {@code 0riiIi_r}: created and begun, ready to record.
     */
    static CallOutcome create(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Device device = Args.deref(a, 0, HalTypes.DEVICE, Device.class);
        CommandBuffer commandBuffer = device.createCommandBuffer(a.i32(0), a.i32(1), a.i64(2), a.i32(3));
        try {
            commandBuffer.begin();
        } catch (RuntimeException e) {
            commandBuffer.release();
            throw e;
        }
        call.results().setRef(0, HalRef.adopt(HalTypes.COMMAND_BUFFER, commandBuffer, commandBuffer));
        return CallOutcome.COMPLETED;
    }

    /** {@code command_buffer.finalize(command_buffer)}, {@code 0r_v}: ends recording. */
    static CallOutcome finalizeCommandBuffer(HalState state, NativeCall call) {
        commandBuffer(call.args()).end();
        return CallOutcome.COMPLETED;
    }

    /** {@code command_buffer.begin_debug_group(command_buffer, label)}, {@code 0rr_v}. */
    static CallOutcome beginDebugGroup(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        commandBuffer(a).beginDebugGroup(Args.string(a, 1));
        return CallOutcome.COMPLETED;
    }

    /** {@code command_buffer.end_debug_group(command_buffer)}, {@code 0r_v}. */
    static CallOutcome endDebugGroup(HalState state, NativeCall call) {
        commandBuffer(call.args()).endDebugGroup();
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code command_buffer.execution_barrier(command_buffer, source_stages, target_stages, flags)},
     * {@code 0riiI_v}.
     */
    static CallOutcome executionBarrier(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        commandBuffer(a).executionBarrier(a.i32(0), a.i32(1), (int) a.i64(2));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code command_buffer.advise_buffer(command_buffer, buffer, flags, arg0, arg1, buffer_slot)},
     * {@code 0rrIIIi_v}: a residency/caching hint. The arguments are checked; Ortho's devices keep
     * buffers in host memory where no advice changes anything, so nothing is recorded.
     */
    static CallOutcome adviseBuffer(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        commandBuffer(a);
        bufferRef(a, 1, a.i32(3), 0, Buffer.WHOLE_BUFFER);
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code command_buffer.fill_buffer(command_buffer, target, offset, length, target_slot,
     * pattern, pattern_length, flags)}, {@code 0rrIIiIiI_v}.
     */
    static CallOutcome fillBuffer(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        CommandBuffer commandBuffer = commandBuffer(a);
        BufferRef target = bufferRef(a, 1, a.i32(2), a.i64(0), a.i64(1));
        int patternLength = a.i32(4);
        Args.requirePatternLength(patternLength);
        commandBuffer.fillBuffer(target, (int) a.i64(3), patternLength, (int) a.i64(5));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code command_buffer.update_buffer(command_buffer, source, source_offset, target,
     * target_offset, length, target_slot, flags)}, {@code 0rrIrIIiI_v}: the source bytes are
     * captured at the call; OUT_OF_RANGE if they lie outside the {@code vm.buffer}.
     */
    static CallOutcome updateBuffer(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        CommandBuffer commandBuffer = commandBuffer(a);
        VmBuffer source = Args.vmBuffer(a, 1);
        long sourceOffset = a.i64(0);
        long targetOffset = a.i64(1);
        long length = a.i64(2);
        BufferRef target = bufferRef(a, 2, a.i32(3), targetOffset, length);
        MemorySegment bytes = Args.range(source, sourceOffset, length, "update source");
        commandBuffer.updateBuffer(bytes, target, (int) a.i64(4));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code command_buffer.copy_buffer(command_buffer, source_slot, target_slot, source,
     * source_offset, target, target_offset, length, flags)}, {@code 0riirIrIII_v}.
     */
    static CallOutcome copyBuffer(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        CommandBuffer commandBuffer = commandBuffer(a);
        long length = a.i64(4);
        BufferRef source = bufferRef(a, 1, a.i32(0), a.i64(2), length);
        BufferRef target = bufferRef(a, 2, a.i32(1), a.i64(3), length);
        commandBuffer.copyBuffer(source, target, (int) a.i64(5));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code command_buffer.collective(command_buffer, channel, op, param, send_slot, recv_slot,
     * send, recv, send_offset, send_length, recv_offset, recv_length, element_count)},
     * {@code 0rriiiirrIIIII_v}. Needs a {@code hal.channel}; since no Ortho device creates one, a
     * call that gets past the argument checks fails with UNIMPLEMENTED.
     */
    static CallOutcome collective(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        commandBuffer(a);
        Args.deref(a, 1, HalTypes.CHANNEL, Object.class);
        throw new StatusException(StatusCode.UNIMPLEMENTED, "collective operations are not supported by Ortho devices");
    }

    /**
     * {@code command_buffer.dispatch(command_buffer, executable, function, workgroup_x, _y, _z,
     * flags, [constants...], [(reserved, slot, buffer, offset, length)...])},
     * {@code 0rrIiiiICiDCiirIID_v}: at most {@value #MAX_DISPATCH_BINDINGS} bindings (OUT_OF_RANGE).
     */
    static CallOutcome dispatch(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        int constantCount = Args.spanCount(a, 5);
        int bindingCount = Args.spanCount(a, 6 + constantCount);
        Args.requireLayout(call, constantCount, bindingCount);
        CommandBuffer commandBuffer = commandBuffer(a);
        Executable executable = Args.deref(a, 1, HalTypes.EXECUTABLE, Executable.class);
        int function = Args.toInt(a.i64(0), "dispatch function");
        DispatchConfig config = DispatchConfig.ofCount(a.i32(1), a.i32(2), a.i32(3));
        long flags = a.i64(4);
        MemorySegment constants = constants(a, 6, constantCount);
        BufferRef[] bindings = bindings(a, 7 + constantCount, 2, bindingCount);
        commandBuffer.dispatch(executable, function, config, constants, bindings, flags);
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code command_buffer.dispatch.indirect(command_buffer, executable, function,
     * workgroups_slot, workgroups_buffer, workgroups_offset, flags, [constants...], [bindings...])},
     * {@code 0rrIirIICiDCiirIID_v}: the workgroup count is three little-endian uint32 read from the
     * buffer (or slot) when the dispatch runs; unless {@code STATIC_INDIRECT_PARAMETERS} is set the
     * counts are treated as dynamic, as in IREE.
     */
    static CallOutcome dispatchIndirect(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        int constantCount = Args.spanCount(a, 4);
        int bindingCount = Args.spanCount(a, 5 + constantCount);
        Args.requireLayout(call, constantCount, bindingCount);
        CommandBuffer commandBuffer = commandBuffer(a);
        Executable executable = Args.deref(a, 1, HalTypes.EXECUTABLE, Executable.class);
        int function = Args.toInt(a.i64(0), "dispatch function");
        BufferRef workgroups = bufferRef(a, 2, a.i32(1), a.i64(2), 3 * Integer.BYTES);
        long flags = a.i64(3);
        if ((flags & DispatchFlags.STATIC_INDIRECT_PARAMETERS) == 0) {
            flags |= DispatchFlags.DYNAMIC_INDIRECT_PARAMETERS;
        }
        MemorySegment constants = constants(a, 5, constantCount);
        BufferRef[] bindings = bindings(a, 6 + constantCount, 3, bindingCount);
        commandBuffer.dispatch(executable, function, DispatchConfig.indirect(workgroups), constants, bindings, flags);
        return CallOutcome.COMPLETED;
    }

    private static MemorySegment constants(CallBuffer a, int firstSlot, int count) {
        MemorySegment constants = MemorySegment.ofArray(new byte[count * Integer.BYTES]);
        for (int i = 0; i < count; i++) {
            constants.setAtIndex(I32_LE, i, a.i32(firstSlot + i));
        }
        return constants;
    }

    /** Decodes {@code count} {@code (reserved, slot, buffer, offset, length)} tuples. */
    private static BufferRef[] bindings(CallBuffer a, int firstSlot, int firstRef, int count) {
        if (count > MAX_DISPATCH_BINDINGS) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "binding count " + count + " > "
                    + MAX_DISPATCH_BINDINGS);
        }
        BufferRef[] bindings = new BufferRef[count];
        for (int i = 0; i < count; i++) {
            int p = firstSlot + 4 * i;
            bindings[i] = bufferRef(a, firstRef + i, a.i32(p + 1), a.i64(p + 2), a.i64(p + 3));
        }
        return bindings;
    }
}
