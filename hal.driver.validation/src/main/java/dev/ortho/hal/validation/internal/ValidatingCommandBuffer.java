package dev.ortho.hal.validation.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferBarrier;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.Channel;
import dev.ortho.hal.CollectiveOp;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandBufferMode;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.DeviceCapability;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryBarrier;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.spi.ForwardingCommandBuffer;
import dev.ortho.hal.spi.CommandRecorder;
import dev.ortho.hal.spi.ForwardingEvent;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * A command buffer handed out by a {@link ValidatingDevice}: IREE's command buffer validation
 * ({@code hal/command_buffer_validation.c}) in front of any device's command buffer. Every
 * recording call is checked completely before it is forwarded, so a rejected call leaves the
 * inner command buffer untouched.
 *
 * <p>Checks: the begin/end state machine (a buffer is recorded once), categories, debug-group
 * balance, binding slots against the capacity and the submission rules are the shared
 * {@link CommandRecorder}'s (IREE's rules written once for every driver); added here: each buffer
 * reference against what the command needs (memory type, usage, access,
 * device compatibility, range, alignment), fill patterns, update size, copy lengths and overlap,
 * binding-table slots below the capacity with their requirements merged per slot and checked
 * against the table at submission ({@link #validateSubmission}), dispatches as
 * {@link DispatchChecks}. Codes are IREE's. Unlike IREE, a command buffer created
 * {@code UNVALIDATED} is checked too: whoever asked for the validation wrapper asked for checks.
 *
 * <p>One thread records (like any command buffer); submission may come from any thread.
 */
final class ValidatingCommandBuffer extends ForwardingCommandBuffer {
    private final ValidatingDevice device;
    private final Liveness liveness = new Liveness();
    private final int mode;
    private final int categories;
    private final int capacity;
    /**
     * State, categories, debug groups, slot capacity and submission; it retains nothing (the
     * inner command buffer does). Its volatile state publishes the recorded requirements below to
     * submitters.
     */
    private final CommandRecorder recorder;
    /** Write hazards between the commands of the current barrier region (Ortho's check; IREE has none). */
    private final RegionHazards hazards = new RegionHazards();
    /** Slots below this are used by indirect references; the arrays hold their merged requirements. */
    private int bindingCount;
    private int[] slotCompatibility = new int[0];
    private int[] slotUsage = new int[0];
    private int[] slotAccess = new int[0];
    private long[] slotEnd = new long[0];
    private long[] slotAlignment = new long[0];

    ValidatingCommandBuffer(ValidatingDevice owner, CommandBuffer delegate) {
        super(owner, delegate);
        this.device = owner;
        this.mode = delegate.mode();
        this.categories = delegate.allowedCategories();
        this.capacity = delegate.bindingCapacity();
        this.recorder = new CommandRecorder(this, mode, categories, capacity, false);
    }

    @Override
    public int mode() {
        liveness.check("commandBuffer.mode", this);
        return mode;
    }

    @Override
    public int allowedCategories() {
        liveness.check("commandBuffer.allowedCategories", this);
        return categories;
    }

    @Override
    public long queueAffinity() {
        liveness.check("commandBuffer.queueAffinity", this);
        return super.queueAffinity();
    }

    @Override
    public int bindingCapacity() {
        liveness.check("commandBuffer.bindingCapacity", this);
        return capacity;
    }

    @Override
    public void begin() {
        liveness.check("commandBuffer.begin", this);
        recorder.begin();
        super.begin();
    }

    @Override
    public void end() {
        liveness.check("commandBuffer.end", this);
        recorder.end(); // IREE's end checks; its volatile state publishes the slot requirements to submitters
        super.end();
    }

    @Override
    public void beginDebugGroup(String label) {
        recording("commandBuffer.beginDebugGroup", 0);
        Checks.requireNonNull(label, "commandBuffer.beginDebugGroup", "label");
        super.beginDebugGroup(label);
        recorder.beginDebugGroup(label);
    }

    @Override
    public void endDebugGroup() {
        recording("commandBuffer.endDebugGroup", 0);
        recorder.endDebugGroup();
        super.endDebugGroup();
    }

    @Override
    public void executionBarrier(int sourceStages, int targetStages, int flags) {
        recording("commandBuffer.executionBarrier", 0);
        super.executionBarrier(sourceStages, targetStages, flags);
        hazards.barrier();
    }

    @Override
    public void executionBarrier(int sourceStages, int targetStages, int flags, MemoryBarrier[] memoryBarriers,
            BufferBarrier[] bufferBarriers) {
        String call = "commandBuffer.executionBarrier";
        recording(call, 0);
        checkBarriers(call, memoryBarriers, bufferBarriers);
        super.executionBarrier(sourceStages, targetStages, flags, memoryBarriers, bufferBarriers);
        hazards.barrier();
    }

    /**
     * Barriers carry no binding requirements (IREE validates none); their buffers must still be
     * usable here and their ranges inside the buffer or below the binding capacity.
     */
    private void checkBarriers(String call, MemoryBarrier[] memoryBarriers, BufferBarrier[] bufferBarriers) {
        if (memoryBarriers != null) {
            for (int i = 0; i < memoryBarriers.length; i++) {
                if (memoryBarriers[i] == null) {
                    throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "memoryBarriers[" + i + "]", "is null");
                }
            }
        }
        if (bufferBarriers != null) {
            for (int i = 0; i < bufferBarriers.length; i++) {
                String argument = "bufferBarriers[" + i + "]";
                if (bufferBarriers[i] == null || bufferBarriers[i].buffer() == null) {
                    throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, argument, "is null");
                }
                BufferRef ref = bufferBarriers[i].buffer();
                if (ref.isIndirect()) {
                    checkSlot(call, argument, ref, 1);
                } else {
                    device.refs().direct(call, argument, ref.buffer(), ref.offset(), ref.length(), -1, 0, 0,
                            MemoryAccess.ANY, 0, 1);
                }
            }
        }
    }

    @Override
    public void signalEvent(Event event, int sourceStages) {
        recording("commandBuffer.signalEvent", CommandCategory.DISPATCH);
        event("commandBuffer.signalEvent", "event", event);
        super.signalEvent(event, sourceStages);
    }

    @Override
    public void resetEvent(Event event, int sourceStages) {
        recording("commandBuffer.resetEvent", CommandCategory.DISPATCH);
        event("commandBuffer.resetEvent", "event", event);
        super.resetEvent(event, sourceStages);
    }

    @Override
    public void waitEvents(Event[] events, int sourceStages, int targetStages) {
        recording("commandBuffer.waitEvents", CommandCategory.DISPATCH);
        Checks.requireNonNull(events, "commandBuffer.waitEvents", "events");
        for (int i = 0; i < events.length; i++) {
            event("commandBuffer.waitEvents", "events[" + i + "]", events[i]);
        }
        super.waitEvents(events, sourceStages, targetStages);
        hazards.barrier(); // leniently a full barrier: no false hazard for commands the wait does order
    }

    @Override
    public void waitEvents(Event[] events, int sourceStages, int targetStages, MemoryBarrier[] memoryBarriers,
            BufferBarrier[] bufferBarriers) {
        String call = "commandBuffer.waitEvents";
        recording(call, CommandCategory.DISPATCH);
        Checks.requireNonNull(events, call, "events");
        for (int i = 0; i < events.length; i++) {
            event(call, "events[" + i + "]", events[i]);
        }
        checkBarriers(call, memoryBarriers, bufferBarriers);
        super.waitEvents(events, sourceStages, targetStages, memoryBarriers, bufferBarriers);
        hazards.barrier(); // leniently a full barrier: no false hazard for commands the wait does order
    }

    /** IREE's advise validation: TRANSFER category, a device-visible range; no flags are defined. */
    @Override
    public void adviseBuffer(BufferRef buffer, long flags, long arg0, long arg1) {
        String call = "commandBuffer.adviseBuffer";
        recording(call, CommandCategory.TRANSFER);
        Checks.requireNonNull(buffer, call, "buffer");
        if (flags != 0) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "flags", "0x" + Long.toHexString(flags)
                    + " are unknown (no advice flags are defined)");
        }
        if (buffer.isIndirect()) {
            checkSlot(call, "buffer", buffer, 1);
        } else {
            device.refs().direct(call, "buffer", buffer.buffer(), buffer.offset(), buffer.length(), -1, 0, 0,
                    MemoryAccess.ANY, MemoryType.DEVICE_VISIBLE, 1);
        }
        super.adviseBuffer(buffer, flags, arg0, arg1);
        mergeRef(buffer, -1, 0, 0, 0, 1); // counts the slot; no usage, so nothing to check at submission
    }

    /**
     * IREE's collective validation (known kind, reduction and element type; a reduction only for
     * reducing kinds; the send and receive buffers each kind uses, readable and writable as
     * dispatch storage). A device without {@code COLLECTIVES} reports UNIMPLEMENTED itself.
     */
    @Override
    public void collective(Channel channel, int op, int param, BufferRef send, BufferRef recv, long elementCount) {
        String call = "commandBuffer.collective";
        recording(call, CommandCategory.DISPATCH);
        if (!DeviceCapability.has(device.delegate().capabilities(), DeviceCapability.COLLECTIVES)) {
            super.collective(channel, op, param, send, recv, elementCount);
            return;
        }
        int kind = CollectiveOp.kind(op);
        int reduction = CollectiveOp.reduction(op);
        if (kind > CollectiveOp.KIND_SEND_RECV || reduction > CollectiveOp.REDUCTION_AVERAGE
                || CollectiveOp.elementType(op) > CollectiveOp.ELEMENT_BFLOAT_16 || (op >>> 24) != 0) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "op", "0x" + Integer.toHexString(op)
                    + " has kind " + kind + " (max " + CollectiveOp.KIND_SEND_RECV + "), reduction " + reduction
                    + " (max " + CollectiveOp.REDUCTION_AVERAGE + "), element type " + CollectiveOp.elementType(op)
                    + " (max " + CollectiveOp.ELEMENT_BFLOAT_16 + ")");
        }
        boolean reducing = kind == CollectiveOp.KIND_ALL_REDUCE || kind == CollectiveOp.KIND_REDUCE
                || kind == CollectiveOp.KIND_REDUCE_SCATTER;
        if (!reducing && reduction != CollectiveOp.REDUCTION_NONE) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "op", "reduction " + reduction
                    + " given for the non-reducing kind " + kind);
        }
        if (elementCount < 0) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "elementCount", elementCount + " is negative");
        }
        boolean usesSend = kind != CollectiveOp.KIND_RECV;
        boolean usesRecv = kind != CollectiveOp.KIND_SEND;
        collectiveRef(call, "send", send, usesSend, BufferUsage.DISPATCH_STORAGE_READ, MemoryAccess.READ);
        collectiveRef(call, "recv", recv, usesRecv, BufferUsage.DISPATCH_STORAGE_WRITE, MemoryAccess.WRITE);
        if (channel instanceof ValidatingChannel validating && validating.owner() == device) {
            validating.checkLive(call, "channel");
        } else {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "channel", channel == null ? "is null"
                    : channel + " was not created by " + device);
        }
        super.collective(channel, op, param, send, recv, elementCount);
        if (usesSend) {
            mergeRef(send, -1, Allocator.COMPATIBILITY_QUEUE_DISPATCH, BufferUsage.DISPATCH_STORAGE_READ,
                    MemoryAccess.READ, 1);
        }
        if (usesRecv) {
            mergeRef(recv, -1, Allocator.COMPATIBILITY_QUEUE_DISPATCH, BufferUsage.DISPATCH_STORAGE_WRITE,
                    MemoryAccess.WRITE, 1);
        }
    }

    private void collectiveRef(String call, String argument, BufferRef ref, boolean used, int usage, int access) {
        if (!used) {
            if (ref != null) {
                throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, argument, "is given but the operation does not "
                        + "use a " + argument + " buffer");
            }
            return;
        }
        Checks.requireNonNull(ref, call, argument);
        if (ref.isIndirect()) {
            checkSlot(call, argument, ref, 1);
        } else {
            device.refs().direct(call, argument, ref.buffer(), ref.offset(), ref.length(), -1,
                    Allocator.COMPATIBILITY_QUEUE_DISPATCH, usage, access, MemoryType.DEVICE_VISIBLE, 1);
        }
    }

    @Override
    public void fillBuffer(BufferRef target, int pattern, int patternLength, int flags) {
        String call = "commandBuffer.fillBuffer";
        recording(call, CommandCategory.TRANSFER);
        Checks.requireNonNull(target, call, "target");
        ValidatingBuffer.checkPatternLength(call, patternLength);
        if (target.isIndirect()) {
            Checks.alignment(call, "target", target.offset(), target.length() == Buffer.WHOLE_BUFFER ? -1
                    : target.length(), patternLength);
            checkSlot(call, "target", target, patternLength);
        } else {
            long length = device.refs().direct(call, "target", target.buffer(), target.offset(), target.length(), -1,
                    Allocator.COMPATIBILITY_QUEUE_TRANSFER, BufferUsage.TRANSFER_TARGET, MemoryAccess.WRITE,
                    MemoryType.DEVICE_VISIBLE, 1);
            Checks.alignment(call, "target", target.offset(), length, patternLength);
        }
        hazard(call, "target", target, -1, RegionHazards.Kind.WRITE, -1);
        super.fillBuffer(target, pattern, patternLength, flags);
        hazard(call, "target", target, -1, RegionHazards.Kind.WRITE, hazards.command(call));
        mergeRef(target, -1, Allocator.COMPATIBILITY_QUEUE_TRANSFER, BufferUsage.TRANSFER_TARGET, MemoryAccess.WRITE,
                patternLength);
    }

    @Override
    public void updateBuffer(MemorySegment source, BufferRef target, int flags) {
        String call = "commandBuffer.updateBuffer";
        recording(call, CommandCategory.TRANSFER);
        Checks.requireNonNull(source, call, "source");
        Checks.requireNonNull(target, call, "target");
        if (source.byteSize() > Checks.MAX_UPDATE_SIZE) {
            throw Checks.fail(StatusCode.OUT_OF_RANGE, call, "source", source.byteSize()
                    + " bytes exceed the update limit of " + Checks.MAX_UPDATE_SIZE + " bytes (64 KiB)");
        }
        if (target.isIndirect()) {
            if (target.length() != Buffer.WHOLE_BUFFER && source.byteSize() > target.length()) {
                throw Checks.fail(StatusCode.OUT_OF_RANGE, call, "target", source.byteSize()
                        + " bytes do not fit the " + target.length() + "-byte target range");
            }
            checkSlot(call, "target", target, 1);
        } else {
            device.refs().direct(call, "target", target.buffer(), target.offset(), target.length(), source.byteSize(),
                    Allocator.COMPATIBILITY_QUEUE_TRANSFER, BufferUsage.TRANSFER_TARGET, MemoryAccess.WRITE,
                    MemoryType.DEVICE_VISIBLE, 1);
        }
        hazard(call, "target", target, source.byteSize(), RegionHazards.Kind.WRITE, -1);
        super.updateBuffer(source, target, flags);
        hazard(call, "target", target, source.byteSize(), RegionHazards.Kind.WRITE, hazards.command(call));
        mergeRef(target, source.byteSize(), Allocator.COMPATIBILITY_QUEUE_TRANSFER, BufferUsage.TRANSFER_TARGET,
                MemoryAccess.WRITE, 1);
    }

    @Override
    public void copyBuffer(BufferRef source, BufferRef target, int flags) {
        String call = "commandBuffer.copyBuffer";
        recording(call, CommandCategory.TRANSFER);
        Checks.requireNonNull(source, call, "source");
        Checks.requireNonNull(target, call, "target");
        long sourceLength = copyRef(call, "source", source, BufferUsage.TRANSFER_SOURCE, MemoryAccess.READ);
        long targetLength = copyRef(call, "target", target, BufferUsage.TRANSFER_TARGET, MemoryAccess.WRITE);
        if (sourceLength >= 0 && targetLength >= 0 && sourceLength != targetLength) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "target", "length " + targetLength
                    + " differs from the source length " + sourceLength + " (copy spans must match)");
        }
        if (!source.isIndirect() && !target.isIndirect()) {
            device.checkDisjoint(call, source.buffer(), source.offset(), sourceLength, target.buffer(),
                    target.offset(), targetLength);
        }
        hazard(call, "source", source, sourceLength, RegionHazards.Kind.READ, -1);
        hazard(call, "target", target, targetLength, RegionHazards.Kind.WRITE, -1);
        super.copyBuffer(source, target, flags);
        int command = hazards.command(call);
        hazard(call, "source", source, sourceLength, RegionHazards.Kind.READ, command);
        hazard(call, "target", target, targetLength, RegionHazards.Kind.WRITE, command);
        mergeRef(source, -1, Allocator.COMPATIBILITY_QUEUE_TRANSFER, BufferUsage.TRANSFER_SOURCE, MemoryAccess.READ, 1);
        mergeRef(target, -1, Allocator.COMPATIBILITY_QUEUE_TRANSFER, BufferUsage.TRANSFER_TARGET, MemoryAccess.WRITE, 1);
    }

    /** Checks one side of a copy; returns its length, or -1 if it is indirect and unbounded. */
    private long copyRef(String call, String argument, BufferRef ref, int usage, int access) {
        if (ref.isIndirect()) {
            checkSlot(call, argument, ref, 1);
            return ref.length() == Buffer.WHOLE_BUFFER ? -1 : ref.length();
        }
        return device.refs().direct(call, argument, ref.buffer(), ref.offset(), ref.length(), -1,
                Allocator.COMPATIBILITY_QUEUE_TRANSFER, usage, access, MemoryType.DEVICE_VISIBLE, 1);
    }

    @Override
    public void dispatch(Executable executable, int function, DispatchConfig config, MemorySegment constants,
            BufferRef[] bindings, long flags) {
        String call = "commandBuffer.dispatch";
        recording(call, CommandCategory.DISPATCH);
        boolean indirect = DispatchChecks.check(call, device, this, executable, function, config, constants,
                bindings, flags);
        super.dispatch(executable, function, config, constants, bindings, flags); // not a hazard: see RegionHazards
        if (indirect) {
            DispatchChecks.merge(this, config, bindings, flags);
        }
    }

    /**
     * Checks ({@code command < 0}) or records ({@code command} from {@link RegionHazards#command})
     * one checked reference's range against the region's other commands: direct references by
     * allocation and allocation range, indirect ones by slot and range in the slot (to its end if
     * it is open-ended). {@code length} is the bytes accessed, or -1 for the reference's own
     * length.
     */
    private void hazard(String call, String argument, BufferRef ref, long length, RegionHazards.Kind kind,
            int command) {
        Object key;
        long start;
        long end;
        if (ref.isIndirect()) {
            key = ref.bufferSlot();
            start = ref.offset();
            end = length >= 0 ? start + length : ref.length() == Buffer.WHOLE_BUFFER ? Long.MAX_VALUE
                    : start + ref.length();
        } else {
            Buffer inner = device.unwrap(ref.buffer());
            key = inner.allocatedBuffer();
            start = inner.byteOffset() + ref.offset();
            end = start + (length >= 0 ? length : ref.length() == Buffer.WHOLE_BUFFER
                    ? inner.byteLength() - ref.offset() : ref.length());
        }
        if (command < 0) {
            hazards.check(call, argument, key, start, end, kind);
        } else {
            hazards.record(key, start, end, kind, command);
        }
    }

    /** An indirect reference's slot must be below the binding capacity (OUT_OF_RANGE) and its offset aligned. */
    void checkSlot(String call, String argument, BufferRef ref, long alignment) {
        recorder.checkRef(call, argument, ref);
        Checks.alignment(call, argument, ref.offset(), -1, alignment);
    }

    /**
     * Merges what a checked indirect reference needs into its slot's requirements (IREE merges by
     * OR-ing bits, taking the largest end and the least common multiple of the alignments). Direct
     * references need nothing at submission.
     */
    void mergeRef(BufferRef ref, long accessLength, int compatibility, int usage, int access, long alignment) {
        if (ref == null || !ref.isIndirect()) {
            return;
        }
        int slot = ref.bufferSlot();
        if (slot >= slotUsage.length) {
            int size = Math.max(slot + 1, Math.min(capacity, Math.max(8, slotUsage.length * 2)));
            slotCompatibility = Arrays.copyOf(slotCompatibility, size);
            slotUsage = Arrays.copyOf(slotUsage, size);
            slotAccess = Arrays.copyOf(slotAccess, size);
            slotEnd = Arrays.copyOf(slotEnd, size);
            slotAlignment = Arrays.copyOf(slotAlignment, size);
        }
        long length = accessLength >= 0 ? accessLength : ref.length() == Buffer.WHOLE_BUFFER ? 0 : ref.length();
        slotCompatibility[slot] |= compatibility;
        slotUsage[slot] |= usage;
        slotAccess[slot] |= access;
        slotEnd[slot] = Math.max(slotEnd[slot], ref.offset() + length);
        if (alignment > 1) {
            long current = slotAlignment[slot];
            slotAlignment[slot] = current <= 1 ? alignment : lcm(current, alignment);
        }
        bindingCount = Math.max(bindingCount, slot + 1);
    }

    private static long lcm(long a, long b) {
        long x = a;
        long y = b;
        while (y != 0) {
            long t = x % y;
            x = y;
            y = t;
        }
        return a / x * b;
    }

    /**
     * IREE's submission validation: recorded and ended, not a second submission of a one-shot
     * buffer, inline buffers without waits, and a binding table holding every used slot with a
     * buffer meeting the merged requirements. Changes nothing; see {@link #markSubmitted}.
     */
    void validateSubmission(String call, SemaphoreList waits, BindingTable table) {
        liveness.check(call, "commandBuffer", this);
        recorder.checkSubmission(call);
        if (CommandBufferMode.has(mode, CommandBufferMode.ALLOW_INLINE_EXECUTION) && !waits.isEmpty()) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "waits", waits.size()
                    + " waits given but an ALLOW_INLINE_EXECUTION command buffer must be ready at once (0 waits)");
        }
        if (bindingCount == 0) {
            return;
        }
        int size = table == null ? 0 : table.size();
        if (size == 0) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "bindings", "no binding table given but "
                    + this + " uses " + bindingCount + " slots");
        }
        if (size < bindingCount) {
            throw Checks.fail(StatusCode.OUT_OF_RANGE, call, "bindings", "the binding table has " + size
                    + " slots but " + this + " uses slot " + (bindingCount - 1) + " (needs at least " + bindingCount
                    + ")");
        }
        for (int slot = 0; slot < bindingCount; slot++) {
            if (slotUsage[slot] != 0) {
                validateSlot(call, table, slot);
            }
        }
    }

    private void validateSlot(String call, BindingTable table, int slot) {
        String argument = "bindings slot " + slot;
        Buffer buffer = table.buffer(slot);
        if (buffer == null) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, argument, "is empty but " + this
                    + " references it");
        }
        Buffer inner = device.refs().usable(call, argument, buffer);
        device.refs().requirements(call, argument, buffer, inner, slotCompatibility[slot], slotUsage[slot], slotAccess[slot],
                MemoryType.DEVICE_VISIBLE);
        long bound = Checks.range(call, argument, table.offset(slot), table.length(slot), inner.byteLength());
        if (slotEnd[slot] > bound) {
            throw Checks.fail(StatusCode.OUT_OF_RANGE, call, argument, "recorded commands reach byte "
                    + slotEnd[slot] + " but the slot binds only " + bound + " bytes");
        }
        Checks.alignment(call, argument, table.offset(slot), -1, slotAlignment[slot]);
    }

    /** Claims the one submission of a one-shot buffer; FAILED_PRECONDITION if another thread won. */
    void markSubmitted(String call) {
        recorder.claimSubmission(call);
    }

    /** Undoes {@link #markSubmitted} when the inner device refused the submission. */
    void unmarkSubmitted() {
        recorder.unclaimSubmission();
    }

    private void recording(String call, int category) {
        liveness.check(call, this);
        recorder.require(call, category);
    }

    private void event(String call, String argument, Event event) {
        if (event instanceof ValidatingEvent validating && validating.owner() == device) {
            validating.checkLive(call, argument);
            return;
        }
        if (event == null) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, argument, "is null");
        }
        String owner = event instanceof ForwardingEvent foreign ? foreign.owner().toString() : "another device";
        throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, argument, event + " belongs to " + owner + ", not to "
                + device + " (events are used only by their own device)");
    }

    @Override
    public void retain() {
        liveness.retain("commandBuffer.retain", this);
        super.retain();
    }

    @Override
    public void release() {
        liveness.release("commandBuffer.release", this);
        super.release();
    }

    @Override
    public String toString() {
        return "command buffer (" + CommandBufferMode.format(mode) + ", " + CommandCategory.format(categories)
                + ", capacity " + capacity + ")";
    }
}
