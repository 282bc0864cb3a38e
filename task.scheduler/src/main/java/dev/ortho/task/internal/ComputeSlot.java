package dev.ortho.task.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

abstract class ComputeSlotPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p10, p11, p12, p13, p14, p15, p16, p17;
}

abstract class ComputeSlotFields extends ComputeSlotPad0 {
    volatile Object process;
    volatile int placementEpoch;
    volatile long activeDrainers;
}

abstract class ComputeSlotPad1 extends ComputeSlotFields {
    long p20, p21, p22, p23, p24, p25, p26, p27;
    long p30, p31, p32, p33, p34, p35, p36, p37;
}

/**
 * One compute slot (IREE's {@code iree_task_compute_slot_t}), on its own cache lines: the
 * process, the placement epoch captured when it was published, and the tagged drainer count.
 *
 * <p>{@code activeDrainers} is {@code generation << 32 | count}. Workers add one before drain
 * and subtract one after. The last drainer to leave claims the release by CAS from exactly
 * {@code gen|0} to {@code gen|SENTINEL}; the release ends by storing {@code (gen+1)|0}. A worker
 * that saw count zero in an older generation can never win the CAS against a newer lifetime,
 * and a worker entering during a release sees a negative count and backs out.
 */
final class ComputeSlot extends ComputeSlotPad1 {
    /** Marks a slot claimed by a scheduler that has not yet published its process. */
    static final Object RESERVED = new Object();
    static final long GEN_INCREMENT = 1L << 32;
    static final long SENTINEL = 0x8000_0000L;
    static final long COUNT_MASK = 0xFFFF_FFFFL;

    private static final VarHandle PROCESS;
    private static final VarHandle PLACEMENT_EPOCH;
    private static final VarHandle ACTIVE_DRAINERS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            PROCESS = l.findVarHandle(ComputeSlotFields.class, "process", Object.class);
            PLACEMENT_EPOCH = l.findVarHandle(ComputeSlotFields.class, "placementEpoch", int.class);
            ACTIVE_DRAINERS = l.findVarHandle(ComputeSlotFields.class, "activeDrainers", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** This slot's position in the executor's array (its bit in the occupancy mask). */
    final int index;

    ComputeSlot(int index) {
        this.index = index;
    }

    /** Acquire load; pairs with the release in {@link #soProcess}. */
    Object lvProcess() {
        return PROCESS.getAcquire(this);
    }

    /** Release store: publishes the process (and its placement epoch, stored before) to scanners. */
    void soProcess(Object p) {
        PROCESS.setRelease(this, p);
    }

    /** Claims an empty slot for placement. CAS (volatile); the loser tries the next slot. */
    boolean casProcessFromEmpty(Object update) {
        return PROCESS.compareAndSet(this, (Object) null, update);
    }

    /** Acquire load; pairs with {@link #soPlacementEpoch}. */
    int lvPlacementEpoch() {
        return (int) PLACEMENT_EPOCH.getAcquire(this);
    }

    /** Release store; ordered before the process store that makes the slot drainable. */
    void soPlacementEpoch(int epoch) {
        PLACEMENT_EPOCH.setRelease(this, epoch);
    }

    long lvActiveDrainers() {
        return (long) ACTIVE_DRAINERS.getVolatile(this);
    }

    /** Enter as a drainer (volatile RMW); pairs with the release CAS and the reset store. */
    long getAndIncrementDrainers() {
        return (long) ACTIVE_DRAINERS.getAndAdd(this, 1L);
    }

    /** Leave as a drainer (volatile RMW): publishes this drainer's writes to the releaser. */
    long getAndDecrementDrainers() {
        return (long) ACTIVE_DRAINERS.getAndAdd(this, -1L);
    }

    boolean casActiveDrainers(long expect, long update) {
        return ACTIVE_DRAINERS.compareAndSet(this, expect, update);
    }

    static int count(long tagged) {
        return (int) tagged;
    }
}
