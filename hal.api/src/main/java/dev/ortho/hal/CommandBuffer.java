package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.foreign.MemorySegment;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A recorded sequence of transfer and dispatch commands submitted with
 * {@link Device#queueExecute}: IREE's {@code iree_hal_command_buffer_t}.
 *
 * <p>Life cycle: created in the initial state, {@link #begin()}, record commands, {@link #end()},
 * then submit (once for {@link CommandBufferMode#ONE_SHOT}, any number of times otherwise).
 * Commands run in order except where barriers allow overlap. Buffers referenced directly are
 * retained by the command buffer (unless created {@link CommandBufferMode#UNRETAINED}); indirect
 * references resolve against the binding table given at submission.
 *
 * <p>Not thread-safe while recording: one thread records. A finished command buffer may be
 * submitted from any thread.
 *
 * <p>All recording methods throw {@link dev.ortho.base.StatusException} FAILED_PRECONDITION if the
 * command buffer is not recording. Devices check little else on the hot path; wrap a device with
 * the validation layer ({@code validation+<driver>://}) to get IREE's full recording checks.
 */
@ProviderType
public interface CommandBuffer extends Resource {

    /** {@link CommandBufferMode} bits it was created with. */
    int mode();

    /** {@link CommandCategory} bits of the commands it may contain. */
    int allowedCategories();

    /** Queues it may be submitted to. */
    long queueAffinity();

    /** Number of binding-table slots its indirect references may use. */
    int bindingCapacity();

    /** Starts recording. */
    void begin();

    /** Finishes recording; the command buffer can then be submitted. */
    void end();

    /** Opens a named debug group (for tracing tools); groups nest and must be balanced. */
    void beginDebugGroup(String label);

    /** Closes the innermost debug group. */
    void endDebugGroup();

    /**
     * Orders commands before the barrier ({@code sourceStages}) before commands after it
     * ({@code targetStages}), with {@link ExecutionStage} bits; memory written before is visible
     * after.
     */
    void executionBarrier(int sourceStages, int targetStages, int flags);

    /**
     * An execution barrier with IREE's finer memory and buffer barriers
     * ({@code iree_hal_command_buffer_execution_barrier} in full): a device may use them to
     * order less than everything. The default records a full
     * {@link #executionBarrier(int, int, int)}, which is always correct; arrays may be null or
     * empty and are read during the call only.
     */
    default void executionBarrier(int sourceStages, int targetStages, int flags, MemoryBarrier[] memoryBarriers,
            BufferBarrier[] bufferBarriers) {
        executionBarrier(sourceStages, targetStages, flags);
    }

    /** Signals {@code event} once commands before it reach {@code sourceStages}. */
    void signalEvent(Event event, int sourceStages);

    /** Resets {@code event} once commands before it reach {@code sourceStages}. */
    void resetEvent(Event event, int sourceStages);

    /** Waits until every event in {@code events} is signalled before {@code targetStages}. */
    void waitEvents(Event[] events, int sourceStages, int targetStages);

    /**
     * Waits for {@code events} with IREE's memory and buffer barriers
     * ({@code iree_hal_command_buffer_wait_events} in full). The default waits with
     * {@link #waitEvents(Event[], int, int)}, which orders everything and is always correct.
     */
    default void waitEvents(Event[] events, int sourceStages, int targetStages, MemoryBarrier[] memoryBarriers,
            BufferBarrier[] bufferBarriers) {
        waitEvents(events, sourceStages, targetStages);
    }

    /**
     * Advises the device how {@code buffer} will be used: IREE's
     * {@code iree_hal_command_buffer_advise_buffer}. A hint that never changes results. IREE
     * defines no advice flags yet, so {@code flags} must be 0; {@code arg0} and {@code arg1} are
     * flag-specific. The default validates the arguments and records nothing.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT for a null reference or unknown
     *     flags (naming them)
     */
    default void adviseBuffer(BufferRef buffer, long flags, long arg0, long arg1) {
        if (buffer == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "adviseBuffer buffer reference is null");
        }
        if (flags != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "adviseBuffer flags 0x" + Long.toHexString(flags) + " are unknown (none are defined)");
        }
    }

    /**
     * Records a collective operation over {@code channel}: IREE's
     * {@code iree_hal_command_buffer_collective}. {@code op} is a {@link CollectiveOp#pack packed}
     * operation, {@code param} its kind-specific parameter (root or peer rank), and
     * {@code elementCount} the number of elements sent. Devices without collectives
     * ({@link DeviceCapability#COLLECTIVES} unset) report UNIMPLEMENTED, as the default does.
     *
     * @throws dev.ortho.base.StatusException UNIMPLEMENTED if the device has no collectives
     */
    default void collective(Channel channel, int op, int param, BufferRef send, BufferRef recv, long elementCount) {
        throw new StatusException(StatusCode.UNIMPLEMENTED,
                "collectives are not implemented by command buffer " + this);
    }

    /**
     * Fills {@code target} with the low {@code patternLength} (1, 2 or 4) bytes of
     * {@code pattern}, repeated little-endian.
     */
    void fillBuffer(BufferRef target, int pattern, int patternLength, int flags);

    /**
     * Copies host bytes into {@code target}. The bytes are captured at the call (at most
     * 64 KiB, IREE's limit), so {@code source} may change afterwards.
     */
    void updateBuffer(MemorySegment source, BufferRef target, int flags);

    /** Copies {@code source} to {@code target}; lengths must match and ranges not overlap. */
    void copyBuffer(BufferRef source, BufferRef target, int flags);

    /**
     * Dispatches function {@code function} of {@code executable} over the configured grid.
     * {@code constants} (a multiple of 4 bytes) are captured at the call; {@code bindings} give
     * the buffers in the function's binding order. {@code flags} are {@link DispatchFlags}.
     */
    void dispatch(Executable executable, int function, DispatchConfig config, MemorySegment constants,
            BufferRef[] bindings, long flags);
}
