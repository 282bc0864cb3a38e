package dev.ortho.hal.cpu.internal.task;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.cpu.internal.vmvx.VmvxLoader;
import dev.ortho.task.Topology;
import dev.ortho.vm.bytecode.ExecutionMode;
import java.util.Map;
import java.util.Set;

/**
 * Configuration of a {@code local-task} device. Keys use IREE's flag names where IREE has one
 * ({@code task_topology_group_count}, {@code task_topology_max_group_count},
 * {@code task_worker_spin_us}); the rest are Ortho's: {@code queue_count} (IREE's device
 * parameter), {@code pool_quota_bytes} (stream-ordered pool limit) and
 * {@code inline_transfer_bytes} (largest fill/copy/update run inline by the queue process) and
 * {@code vmvx_compile} ({@code off}/{@code lazy}/{@code eager}: how VMVX dispatch functions run;
 * LAZY compiles on the worker whose dispatch crosses the threshold while the others keep
 * interpreting) and {@code queue_order} ({@code unordered}, IREE's local-task order and the
 * default: an operation runs when its waits are reached; {@code fifo}: each queue runs its
 * operations in submission order and skips, at submission, waits on values an earlier operation
 * of the same queue signals) and {@code task_caller_runs} ({@code 0}, the default and IREE's
 * behaviour: every tile runs on the workers; {@code 1}: a thread that submits a command buffer
 * or dispatch whose waits are reached, with nothing before it on its queue's processor, runs the
 * first tile itself instead of waiting for a parked worker to be woken for it, and wakes the
 * workers only if more is left) and {@code task_waiter_helps} ({@code 1}, the default: a host
 * thread waiting on a semaphore value that the queue operation current in a block processor will
 * signal runs that operation's unclaimed tiles itself, with processor id {@code worker_count},
 * instead of parking; the submission stays asynchronous; {@code 0}: it parks, as in IREE) and
 * {@code task_worker_linger_us} ({@code auto}, the default: a worker that has just finished work
 * polls for more for up to {@value #AUTO_LINGER_WINDOW_MICROS} µs, but only while work has been
 * coming back within that window, so an idle executor parks at once; {@code N}: it always polls
 * N µs after work; {@code 0}: never, IREE's behaviour; see
 * {@link dev.ortho.task.Executor.Builder#adaptiveLingerNanos}).
 * Defaults come from the driver (ConfigAdmin); a device URI's parameters override them, e.g.
 * {@code local-task://?queue_count=3&task_topology_group_count=2}.
 *
 * @param queueCount queues of the device (1 to 64)
 * @param groupCount worker count; 0 = one per detected topology group
 * @param maxGroupCount cap on the detected group count (IREE's default 64)
 * @param spinMicros how long an idle worker spins before parking
 * @param poolQuotaBytes most bytes the stream-ordered pool commits at once
 * @param inlineTransferBytes transfers up to this size run on the queue process
 * @param kernelExecution how VMVX dispatch functions run; null: as the driver's VMVX loader says
 * @param fifoQueues whether queues run their operations in submission order ({@code queue_order=fifo})
 * @param lingerMicros how long a worker that has just finished work polls for more before parking
 *     ({@code task_worker_linger_us}; see {@link dev.ortho.task.Executor.Builder#lingerNanos}), or
 *     {@link #LINGER_AUTO} for the adaptive linger
 * @param callerRuns whether a submitting thread runs the first tile of what it issues
 *     ({@code task_caller_runs}, 0 or 1)
 * @param waiterHelps whether a thread waiting for a value a running operation signals runs that
 *     operation's tiles ({@code task_waiter_helps}, 0 or 1)
 */
public record LocalTaskOptions(int queueCount, int groupCount, int maxGroupCount, long spinMicros,
        long poolQuotaBytes, long inlineTransferBytes, ExecutionMode kernelExecution, boolean fifoQueues,
        long lingerMicros, boolean callerRuns, boolean waiterHelps) {
    /** The {@code queue_order} value of IREE's local-task order (the default). */
    public static final String QUEUE_ORDER_UNORDERED = "unordered";
    /** The {@code queue_order} value of in-order queues. */
    public static final String QUEUE_ORDER_FIFO = "fifo";
    /**
     * {@code lingerMicros} of {@code task_worker_linger_us=auto} (the default): an adaptive linger
     * with a {@value #AUTO_LINGER_WINDOW_MICROS} µs window.
     */
    public static final long LINGER_AUTO = -1;
    /**
     * The window of the adaptive linger, in µs: about twice what waking a parked worker costs on
     * an idle 2-vCPU VM (~15-25 µs), so a submission that arrives within it is spared that.
     */
    public static final long AUTO_LINGER_WINDOW_MICROS = 50;
    /** IREE's default threshold for queue-inline transfers, 256 KiB. */
    public static final long DEFAULT_INLINE_TRANSFER_BYTES = 256 * 1024;
    /**
     * Defaults: one queue, one worker per group (at most 64), no spinning (IREE's default: a
     * spinning worker takes the core from the worker that was woken for the work, which costs
     * ~100 µs per hand-off on an oversubscribed 2-core machine), the adaptive linger
     * ({@link #LINGER_AUTO}), no quota.
     */
    public static final LocalTaskOptions DEFAULTS = new LocalTaskOptions(1, 0, 64, 0, Long.MAX_VALUE,
            DEFAULT_INLINE_TRANSFER_BYTES);
    private static final Set<String> KEYS = Set.of("queue_count", "task_topology_group_count",
            "task_topology_max_group_count", "task_worker_spin_us", "pool_quota_bytes", "inline_transfer_bytes",
            VmvxLoader.COMPILE_OPTION, "queue_order", "task_worker_linger_us", "task_caller_runs",
            "task_waiter_helps");

    /** Options whose VMVX dispatch functions run as the driver's VMVX loader says. */
    public LocalTaskOptions(int queueCount, int groupCount, int maxGroupCount, long spinMicros, long poolQuotaBytes,
            long inlineTransferBytes) {
        this(queueCount, groupCount, maxGroupCount, spinMicros, poolQuotaBytes, inlineTransferBytes, null, false,
                LINGER_AUTO, false, true);
    }

    /** Options with the adaptive worker linger ({@code task_worker_linger_us=auto}) and the submitter running no tile. */
    public LocalTaskOptions(int queueCount, int groupCount, int maxGroupCount, long spinMicros, long poolQuotaBytes,
            long inlineTransferBytes, ExecutionMode kernelExecution, boolean fifoQueues) {
        this(queueCount, groupCount, maxGroupCount, spinMicros, poolQuotaBytes, inlineTransferBytes, kernelExecution,
                fifoQueues, LINGER_AUTO, false, true);
    }

    /** Options whose waiting threads help ({@code task_waiter_helps=1}, the default). */
    public LocalTaskOptions(int queueCount, int groupCount, int maxGroupCount, long spinMicros, long poolQuotaBytes,
            long inlineTransferBytes, ExecutionMode kernelExecution, boolean fifoQueues, long lingerMicros,
            boolean callerRuns) {
        this(queueCount, groupCount, maxGroupCount, spinMicros, poolQuotaBytes, inlineTransferBytes, kernelExecution,
                fifoQueues, lingerMicros, callerRuns, true);
    }


    /** @throws StatusException INVALID_ARGUMENT naming the option and value outside its range */
    public LocalTaskOptions {
        check("queue_count", queueCount, 1, 64);
        check("task_topology_group_count", groupCount, 0, Topology.MAX_GROUPS);
        check("task_topology_max_group_count", maxGroupCount, 1, Topology.MAX_GROUPS);
        check("task_worker_spin_us", spinMicros, 0, 10_000_000);
        if (lingerMicros != LINGER_AUTO) {
            check("task_worker_linger_us", lingerMicros, 0, 10_000_000);
        }
        check("pool_quota_bytes", poolQuotaBytes, 1, Long.MAX_VALUE);
        check("inline_transfer_bytes", inlineTransferBytes, 0, Long.MAX_VALUE);
    }

    /**
     * These options with {@code params} (device URI parameters) applied.
     *
     * @throws StatusException INVALID_ARGUMENT for an unknown key or a value that is not a number
     *     in range
     */
    public LocalTaskOptions with(Map<String, String> params) {
        for (String key : params.keySet()) {
            if (!KEYS.contains(key)) {
                // the driver takes machine_index itself before these options see the URI's parameters
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "local-task device parameter '" + key
                        + "' is unknown (known: " + String.join(", ", java.util.stream.Stream.concat(KEYS.stream(),
                                java.util.stream.Stream.of(LocalTaskDriver.MACHINE_INDEX)).sorted().toList()) + ")");
            }
        }
        return new LocalTaskOptions(
                (int) number(params, "queue_count", queueCount),
                (int) number(params, "task_topology_group_count", groupCount),
                (int) number(params, "task_topology_max_group_count", maxGroupCount),
                number(params, "task_worker_spin_us", spinMicros),
                number(params, "pool_quota_bytes", poolQuotaBytes),
                number(params, "inline_transfer_bytes", inlineTransferBytes),
                params.containsKey(VmvxLoader.COMPILE_OPTION) ? VmvxLoader.parseKernelExecution(
                        "local-task device parameter", params.get(VmvxLoader.COMPILE_OPTION)) : kernelExecution,
                params.containsKey("queue_order") ? parseQueueOrder(params.get("queue_order")) : fifoQueues,
                linger(params, lingerMicros),
                params.containsKey("task_caller_runs") ? flag(params, "task_caller_runs") : callerRuns,
                params.containsKey("task_waiter_helps") ? flag(params, "task_waiter_helps") : waiterHelps);
    }

    /**
     * Whether {@code text} names FIFO queues.
     *
     * @throws StatusException INVALID_ARGUMENT for anything but {@code fifo} or {@code unordered}
     */
    public static boolean parseQueueOrder(String text) {
        String value = text == null ? "" : text.strip();
        if (value.equals(QUEUE_ORDER_FIFO)) {
            return true;
        }
        if (value.equals(QUEUE_ORDER_UNORDERED)) {
            return false;
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, "local-task device parameter queue_order='" + text
                + "' is not one of " + QUEUE_ORDER_UNORDERED + ", " + QUEUE_ORDER_FIFO);
    }

    /** Whether workers linger adaptively ({@code task_worker_linger_us=auto}). */
    public boolean adaptiveLinger() {
        return lingerMicros == LINGER_AUTO;
    }

    /** The worker count these options give on a machine with {@code detected} topology groups. */
    public int workerCount(int detected) {
        return groupCount > 0 ? groupCount : Math.max(1, Math.min(detected, maxGroupCount));
    }

    private static long number(Map<String, String> params, String key, long current) {
        String text = params.get(key);
        if (text == null) {
            return current;
        }
        try {
            long value = Long.parseLong(text.strip());
            if (!key.endsWith("_bytes") && !key.endsWith("_us") && (value > Integer.MAX_VALUE || value < Integer.MIN_VALUE)) {
                throw new NumberFormatException();
            }
            return value;
        } catch (NumberFormatException e) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "local-task device parameter " + key + "='" + text
                    + "' is not an integer in range");
        }
    }

    /**
     * {@code task_worker_linger_us} of a device URI: {@code auto} or a count of µs (ConfigAdmin's
     * typed property spells {@code auto} as {@link #LINGER_AUTO}; a URI's negative number is
     * rejected, as before there was an {@code auto}).
     */
    private static long linger(Map<String, String> params, long current) {
        String text = params.get("task_worker_linger_us");
        if (text != null && text.strip().equals("auto")) {
            return LINGER_AUTO;
        }
        long value = number(params, "task_worker_linger_us", current);
        if (text != null && value < 0) {
            check("task_worker_linger_us", value, 0, 10_000_000);
        }
        return value;
    }

    private static boolean flag(Map<String, String> params, String key) {
        String text = params.get(key);
        String value = text == null ? "" : text.strip();
        if (value.equals("1")) {
            return true;
        }
        if (value.equals("0")) {
            return false;
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, "local-task device parameter " + key + "='" + text
                + "' is not 0 or 1");
    }

    private static void check(String key, long value, long min, long max) {
        if (value < min || value > max) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "local-task option " + key + " = " + value
                    + " is outside [" + min + ", " + max + "]"
                    + (key.equals("task_worker_linger_us") ? " (or auto)" : ""));
        }
    }
}
