package dev.ortho.hal.cpu;

import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.cpu.internal.builtin.BuiltinKernels;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.cpu.internal.executable.JvmStaticLoader;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriver;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriverFactory;
import dev.ortho.hal.cpu.internal.task.LocalTaskDriver;
import dev.ortho.hal.cpu.internal.task.LocalTaskDriverFactory;
import dev.ortho.hal.cpu.internal.task.LocalTaskOptions;
import dev.ortho.hal.cpu.internal.vmvx.VmvxLoader;
import dev.ortho.hal.cpu.internal.vmvx.VmvxModule;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import dev.ortho.hal.frontier.QueueAxes;
import dev.ortho.hal.spi.DriverFactory;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Builds the CPU drivers ({@code local-sync}, {@code local-task}) and their devices without a
 * framework: the plain-Java equivalent of what the bundle's DS components publish. Register the
 * factories with a {@link dev.ortho.hal.DriverRegistry}, or ask the {@link Builder} for a device
 * directly:
 *
 * <pre>{@code
 * try (Device device = CpuDrivers.builder().extensions(BuiltinExtensions.all()).workerCount(2).localTask()) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Every driver built here has the {@code vmvx-bytecode-fb} loader (with the given instruction
 * extensions), the {@code jvm-static} loader (with the builtin kernel library {@value #BUILTIN_KERNELS}
 * and the given kernel libraries) and the given extra loaders, tried in that order. Stateless;
 * thread-safe.
 *
 * <p>A {@code local-task} device's workers linger adaptively by default
 * ({@code task_worker_linger_us=auto}): a worker that has just finished work polls for more,
 * yielding its core between polls, for up to 50 µs, but only while work has been coming back
 * within that time, so the next submission of a caller that submits back to back starts without
 * waking a parked thread (which costs ~15 µs on an idle VM), while an executor that has gone idle,
 * or gets work less often than that, parks at once and spins nowhere. Device URI parameter
 * {@code task_worker_linger_us=N} lingers N µs after every piece of work, {@code 0} never
 * (IREE's behaviour).
 */
public final class CpuDrivers {
    /** The name of the builtin kernel library in {@code jvm-static} executables, {@value}. */
    public static final String BUILTIN_KERNELS = BuiltinKernels.NAME;

    private CpuDrivers() {
    }

    /** A builder with the defaults: no instruction extensions, one queue, a worker per core. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The {@code local-sync} driver factory with {@code extensions} (normally
     * {@link dev.ortho.vm.spi.BuiltinExtensions#all()}); same as
     * {@code builder().extensions(extensions).localSyncFactory()}.
     */
    public static DriverFactory localSync(List<? extends InstructionExtension> extensions) {
        return builder().extensions(extensions).localSyncFactory();
    }

    /**
     * The {@code local-task} driver factory with {@code extensions} and the default device options;
     * same as {@code builder().extensions(extensions).localTaskFactory()} (the result is a
     * {@link CpuDriverFactory}).
     */
    public static DriverFactory localTask(List<? extends InstructionExtension> extensions) {
        return builder().extensions(extensions).localTaskFactory();
    }

    /**
     * A new instance of the {@code vmvx} microkernel module (the module VMVX executables import;
     * published as a {@code ModuleProvider} inside OSGi), e.g. to call its microkernels directly.
     * Immutable and thread-safe.
     */
    public static Module vmvxModule() {
        return VmvxModule.create();
    }

    /**
     * Options of the CPU drivers and devices it builds. Device URI parameters of the same names
     * ({@code local-task://?queue_count=2}) override them per device. Setters return this builder;
     * a builder may build any number of factories and devices (each gets its own loaders, so
     * kernel libraries and loaders added later do not reach those built before). Not thread-safe.
     */
    public static final class Builder {
        private final List<InstructionExtension> extensions = new ArrayList<>();
        private final List<KernelLibrary> libraries = new ArrayList<>();
        private final List<ExecutableLoader> loaders = new ArrayList<>();
        private String vmvxCompile;
        private int queueCount = LocalTaskOptions.DEFAULTS.queueCount();
        private int workerCount = LocalTaskOptions.DEFAULTS.groupCount();
        private int maxWorkerCount = LocalTaskOptions.DEFAULTS.maxGroupCount();
        private long workerSpinMicros = LocalTaskOptions.DEFAULTS.spinMicros();
        private long poolQuotaBytes = LocalTaskOptions.DEFAULTS.poolQuotaBytes();
        private long inlineTransferBytes = LocalTaskOptions.DEFAULTS.inlineTransferBytes();
        private boolean fifoQueues = LocalTaskOptions.DEFAULTS.fifoQueues();
        private boolean waiterHelps = LocalTaskOptions.DEFAULTS.waiterHelps();
        private QueueAxes queueAxes = QueueAxes.process();

        private Builder() {
        }

        /**
         * The instruction extensions {@code vmvx-bytecode-fb} executables may use (replacing any
         * given before); without ExtF32/ExtF64 executables that need them fail to prepare with
         * UNIMPLEMENTED. The list is copied.
         */
        public Builder extensions(List<? extends InstructionExtension> extensions) {
            this.extensions.clear();
            this.extensions.addAll(extensions);
            return this;
        }

        /**
         * Adds a kernel library for {@code jvm-static} executables, besides the builtin one.
         *
         * @throws StatusException ALREADY_EXISTS (when building) if two libraries share a name
         */
        public Builder kernelLibrary(KernelLibrary library) {
            libraries.add(Objects.requireNonNull(library, "library"));
            return this;
        }

        /**
         * Adds an executable loader, tried after the builtin ones for the formats it lists: its
         * formats become loadable and show in the devices' {@code hal.executable.format} answers.
         */
        public Builder loader(ExecutableLoader loader) {
            loaders.add(Objects.requireNonNull(loader, "loader"));
            return this;
        }

        /**
         * How VMVX dispatch functions run on devices whose URI does not say: {@code off}
         * (interpreted), {@code lazy} (compiled once hot) or {@code eager} (compiled when prepared,
         * the default); the {@code vmvx_compile} option.
         *
         * @throws StatusException INVALID_ARGUMENT for another value
         */
        public Builder vmvxCompile(String mode) {
            VmvxLoader.parseKernelExecution("CpuDrivers option", mode);
            this.vmvxCompile = mode.strip();
            return this;
        }

        /** {@code local-task}: queues per device (1 to 64; {@code queue_count}). Default 1. */
        public Builder queueCount(int queueCount) {
            this.queueCount = queueCount;
            return this;
        }

        /**
         * {@code local-task}: worker threads per device; 0 (the default) = one per detected
         * topology group ({@code task_topology_group_count}).
         */
        public Builder workerCount(int workerCount) {
            this.workerCount = workerCount;
            return this;
        }

        /** {@code local-task}: cap on the detected group count ({@code task_topology_max_group_count}; default 64). */
        public Builder maxWorkerCount(int maxWorkerCount) {
            this.maxWorkerCount = maxWorkerCount;
            return this;
        }

        /** {@code local-task}: microseconds an idle worker spins before parking ({@code task_worker_spin_us}; default 0). */
        public Builder workerSpinMicros(long micros) {
            this.workerSpinMicros = micros;
            return this;
        }

        /** {@code local-task}: most bytes the stream-ordered pool commits at once ({@code pool_quota_bytes}). */
        public Builder poolQuotaBytes(long bytes) {
            this.poolQuotaBytes = bytes;
            return this;
        }

        /** {@code local-task}: transfers up to this size run on the queue process ({@code inline_transfer_bytes}). */
        public Builder inlineTransferBytes(long bytes) {
            this.inlineTransferBytes = bytes;
            return this;
        }

        /**
         * {@code local-task}: whether each queue runs its operations in submission order and skips,
         * at submission, waits on values an earlier operation of the same queue signals
         * ({@code queue_order=fifo}; default false: IREE's order, an operation runs once its waits
         * are reached). A FIFO queue must not wait on a value only a later submission to it signals.
         *
         * @since 1.2
         */
        public Builder fifoQueues(boolean fifo) {
            this.fifoQueues = fifo;
            return this;
        }

        /**
         * {@code local-task}: whether a host thread waiting for a semaphore value that the operation
         * running on a queue signals ({@code Semaphore.await}, fence waits, a synchronous VM
         * invocation's wait) runs that operation's unclaimed tiles itself instead of parking
         * ({@code task_waiter_helps}; default true; false: it parks until a worker finishes, as in IREE).
         *
         * @since 1.3
         */
        public Builder waiterHelps(boolean helps) {
            this.waiterHelps = helps;
            return this;
        }

        /**
         * {@code local-task}: where devices take their never-reused queue axes; default
         * {@link QueueAxes#process()} (machine index 0). A device server gives its own machine
         * index here, so the frontiers its devices signal name that machine.
         *
         * @since 1.2
         */
        public Builder queueAxes(QueueAxes axes) {
            this.queueAxes = Objects.requireNonNull(axes, "axes");
            return this;
        }

        /**
         * A {@code local-sync} driver factory; it holds no threads, and the caller owns the devices
         * it creates.
         *
         * @throws StatusException ALREADY_EXISTS for two kernel libraries of one name
         */
        public DriverFactory localSyncFactory() {
            return new LocalSyncDriverFactory(loaders());
        }

        /**
         * A {@code local-task} driver factory whose devices start with these options.
         *
         * @throws StatusException INVALID_ARGUMENT naming an option outside its range;
         *     ALREADY_EXISTS for two kernel libraries of one name
         */
        public CpuDriverFactory localTaskFactory() {
            return new LocalTaskDriverFactory(loaders(), options(), queueAxes);
        }

        /**
         * A new {@code local-sync} device (work runs inline on the calling thread); the caller owns
         * it (release or close it).
         *
         * @throws StatusException as {@link #localSyncFactory()}
         */
        public Device localSync() {
            try (LocalSyncDriver driver = new LocalSyncDriver(loaders())) {
                return driver.createDevice(DeviceUri.parse(LocalSyncDriver.NAME + "://"));
            }
        }

        /**
         * A new {@code local-task} device with these options; it starts its executor, which it stops
         * when the caller's last reference is released.
         *
         * @throws StatusException as {@link #localTaskFactory()}
         */
        public Device localTask() {
            try (LocalTaskDriver driver = new LocalTaskDriver(loaders(), options(), queueAxes)) {
                return driver.createDevice(DeviceUri.parse(LocalTaskDriver.NAME + "://"));
            }
        }

        private LocalTaskOptions options() {
            return new LocalTaskOptions(queueCount, workerCount, maxWorkerCount, workerSpinMicros, poolQuotaBytes,
                    inlineTransferBytes, null, fifoQueues, LocalTaskOptions.DEFAULTS.lingerMicros(),
                    LocalTaskOptions.DEFAULTS.callerRuns(), waiterHelps);
        }

        private ExecutableLoaders loaders() {
            List<InstructionExtension> fixed = List.copyOf(extensions);
            List<KernelLibrary> all = new ArrayList<>();
            all.add(new BuiltinKernels());
            all.addAll(libraries);
            List<ExecutableLoader> list = new ArrayList<>();
            list.add(new VmvxLoader(new Instance(), () -> fixed, List.of()));
            list.add(new JvmStaticLoader(all));
            list.addAll(loaders);
            return new ExecutableLoaders(list, vmvxCompile == null ? Map.of() : Map.of(VmvxLoader.COMPILE_OPTION,
                    vmvxCompile));
        }
    }
}
