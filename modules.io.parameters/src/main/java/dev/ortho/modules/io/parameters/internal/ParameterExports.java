package dev.ortho.modules.io.parameters.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.Fence;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.io.parameters.ParameterIndex;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.NativeCall;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.RefType;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The exports of {@code io_parameters} (IREE's {@code modules/io/parameters/exports.inl}): argument
 * decoding, then {@link ParameterOps}. Each is a queue operation on the given device: it returns
 * at once, runs once the wait fence is reached and signals the signal fence (either fence may be
 * null). Errors found before anything is queued are thrown as they are; errors while queueing
 * also fail the signal fence. Stateless.
 */
final class ParameterExports {
    private ParameterExports() {
    }

    /**
     * {@code load(device, queue_affinity, wait_fence, signal_fence, source_scope,
     * target_queue_affinity, target_memory_types, target_buffer_usage, key_table, key_data, spans)
     * -> !vm.list<!hal.buffer>}, {@code 0rIrrrIiirrr_r}: one new buffer per span.
     */
    static CallOutcome load(ParametersState state, NativeCall call) {
        CallBuffer a = call.args();
        Device device = device(a, 0);
        SemaphoreList waits = fence(a, 1);
        SemaphoreList signals = fence(a, 2);
        String scope = scope(a, 3);
        BufferParams target = new BufferParams(a.i32(2), 0, a.i32(3), a.i64(1), 0);
        ParameterIndex index = state.provider(scope);
        Spans spans = new Spans(vmBuffer(a, 4), vmBuffer(a, 5), vmBuffer(a, 6));
        try (Batch batch = new Batch(device, a.i64(0), waits, signals)) {
            VmList buffers = ParameterOps.load(index, batch, scope, target, spans);
            call.results().setRef(0, buffers);
        }
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code gather(device, queue_affinity, wait_fence, signal_fence, source_scope, target_buffer,
     * key_table, key_data, spans)}, {@code 0rIrrrrrrr_v}: each span into the target buffer at its
     * buffer offset.
     */
    static CallOutcome gather(ParametersState state, NativeCall call) {
        CallBuffer a = call.args();
        Device device = device(a, 0);
        SemaphoreList waits = fence(a, 1);
        SemaphoreList signals = fence(a, 2);
        String scope = scope(a, 3);
        Buffer target = buffer(a, 4);
        ParameterIndex index = state.provider(scope);
        Spans spans = new Spans(vmBuffer(a, 5), vmBuffer(a, 6), vmBuffer(a, 7));
        try (Batch batch = new Batch(device, a.i64(0), waits, signals)) {
            ParameterOps.gather(index, batch, scope, target, spans);
        }
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code scatter(device, queue_affinity, wait_fence, signal_fence, source_buffer, target_scope,
     * key_table, key_data, spans)}, {@code 0rIrrrrrrr_v}: each span of the source buffer into its
     * parameter.
     */
    static CallOutcome scatter(ParametersState state, NativeCall call) {
        CallBuffer a = call.args();
        Device device = device(a, 0);
        SemaphoreList waits = fence(a, 1);
        SemaphoreList signals = fence(a, 2);
        Buffer source = buffer(a, 3);
        String scope = scope(a, 4);
        ParameterIndex index = state.provider(scope);
        Spans spans = new Spans(vmBuffer(a, 5), vmBuffer(a, 6), vmBuffer(a, 7));
        try (Batch batch = new Batch(device, a.i64(0), waits, signals)) {
            ParameterOps.scatter(index, batch, source, scope, spans);
        }
        return CallOutcome.COMPLETED;
    }

    private static Device device(CallBuffer a, int slot) {
        Device device = HalRefs.device(a.ref(slot));
        if (device == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "argument ref " + slot
                    + ": expected hal.device but got null");
        }
        return device;
    }

    private static Buffer buffer(CallBuffer a, int slot) {
        Buffer buffer = HalRefs.buffer(a.ref(slot));
        if (buffer == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "argument ref " + slot
                    + ": expected hal.buffer but got null");
        }
        return buffer;
    }

    private static SemaphoreList fence(CallBuffer a, int slot) {
        Fence fence = HalRefs.fence(a.ref(slot));
        return fence == null ? SemaphoreList.empty() : fence.toSemaphoreList();
    }

    private static VmBuffer vmBuffer(CallBuffer a, int slot) {
        VmBuffer buffer = (VmBuffer) RefType.VM_BUFFER.check(a.ref(slot));
        if (buffer == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "argument ref " + slot
                    + ": expected vm.buffer but got null");
        }
        return buffer;
    }

    /** A nullable {@code vm.buffer} as a string ("" for null, IREE's {@code iree_vm_buffer_as_string}). */
    private static String scope(CallBuffer a, int slot) {
        RefObject ref = RefType.VM_BUFFER.check(a.ref(slot));
        if (ref == null) {
            return "";
        }
        return new String(((VmBuffer) ref).segment().toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }
}
