package dev.ortho.modules.hal;

import dev.ortho.hal.Allocator;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferView;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.Fence;
import dev.ortho.hal.Semaphore;
import dev.ortho.modules.hal.internal.Args;
import dev.ortho.modules.hal.internal.HalRef;
import dev.ortho.vm.RefObject;

/**
 * Moves HAL objects into and out of VM refs: program inputs ({@code wrap}) and results
 * ({@code unwrap}). Each {@code wrap} makes a new ref that retains the object (null for null); the
 * caller owns the ref's one count (pass it with {@code VmList.pushRefMove}, or release it). {@code unwrap}
 * borrows: the object is valid while the ref is, retain it to keep it longer. Stateless and
 * thread-safe.
 */
public final class HalRefs {
    private HalRefs() {
    }

    /** A {@code hal.device} ref retaining {@code device}. */
    public static RefObject wrap(Device device) {
        return HalRef.retain(HalTypes.DEVICE, device);
    }

    /** A {@code hal.allocator} ref to {@code device}'s allocator; it retains the device. Null for null. */
    public static RefObject wrapAllocator(Device device) {
        return device == null ? null : HalRef.retain(HalTypes.ALLOCATOR, device.allocator(), device);
    }

    /** A {@code hal.buffer} ref retaining {@code buffer}. */
    public static RefObject wrap(Buffer buffer) {
        return HalRef.retain(HalTypes.BUFFER, buffer);
    }

    /** A {@code hal.buffer_view} ref retaining {@code view}. */
    public static RefObject wrap(BufferView view) {
        return HalRef.retain(HalTypes.BUFFER_VIEW, view);
    }

    /** A {@code hal.command_buffer} ref retaining {@code commandBuffer}. */
    public static RefObject wrap(CommandBuffer commandBuffer) {
        return HalRef.retain(HalTypes.COMMAND_BUFFER, commandBuffer);
    }

    /** A {@code hal.event} ref retaining {@code event}. */
    public static RefObject wrap(Event event) {
        return HalRef.retain(HalTypes.EVENT, event);
    }

    /** A {@code hal.executable} ref retaining {@code executable}. */
    public static RefObject wrap(Executable executable) {
        return HalRef.retain(HalTypes.EXECUTABLE, executable);
    }

    /** A {@code hal.fence} ref retaining {@code fence}. */
    public static RefObject wrap(Fence fence) {
        return HalRef.retain(HalTypes.FENCE, fence);
    }

    /** A {@code hal.semaphore} ref retaining {@code semaphore}. */
    public static RefObject wrap(Semaphore semaphore) {
        return HalRef.retain(HalTypes.SEMAPHORE, semaphore);
    }

    /**
     * The device of a {@code hal.device} ref (null for null).
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT for a ref of another type
     */
    public static Device device(RefObject ref) {
        return Args.unwrapOrNull(ref, HalTypes.DEVICE, Device.class);
    }

    /** The allocator of a {@code hal.allocator} ref (null for null); INVALID_ARGUMENT for another type. */
    public static Allocator allocator(RefObject ref) {
        return Args.unwrapOrNull(ref, HalTypes.ALLOCATOR, Allocator.class);
    }

    /** The buffer of a {@code hal.buffer} ref (null for null); INVALID_ARGUMENT for another type. */
    public static Buffer buffer(RefObject ref) {
        return Args.unwrapOrNull(ref, HalTypes.BUFFER, Buffer.class);
    }

    /** The view of a {@code hal.buffer_view} ref (null for null); INVALID_ARGUMENT for another type. */
    public static BufferView bufferView(RefObject ref) {
        return Args.unwrapOrNull(ref, HalTypes.BUFFER_VIEW, BufferView.class);
    }

    /** The command buffer of a {@code hal.command_buffer} ref (null for null); INVALID_ARGUMENT for another type. */
    public static CommandBuffer commandBuffer(RefObject ref) {
        return Args.unwrapOrNull(ref, HalTypes.COMMAND_BUFFER, CommandBuffer.class);
    }

    /** The event of a {@code hal.event} ref (null for null); INVALID_ARGUMENT for another type. */
    public static Event event(RefObject ref) {
        return Args.unwrapOrNull(ref, HalTypes.EVENT, Event.class);
    }

    /** The executable of a {@code hal.executable} ref (null for null); INVALID_ARGUMENT for another type. */
    public static Executable executable(RefObject ref) {
        return Args.unwrapOrNull(ref, HalTypes.EXECUTABLE, Executable.class);
    }

    /** The fence of a {@code hal.fence} ref (null for null); INVALID_ARGUMENT for another type. */
    public static Fence fence(RefObject ref) {
        return Args.unwrapOrNull(ref, HalTypes.FENCE, Fence.class);
    }

    /** The semaphore of a {@code hal.semaphore} ref (null for null); INVALID_ARGUMENT for another type. */
    public static Semaphore semaphore(RefObject ref) {
        return Args.unwrapOrNull(ref, HalTypes.SEMAPHORE, Semaphore.class);
    }
}
