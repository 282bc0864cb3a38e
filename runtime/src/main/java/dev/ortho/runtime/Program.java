package dev.ortho.runtime;

import static dev.ortho.base.MessageText.printable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.BufferView;
import dev.ortho.hal.Device;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.ElementType;
import dev.ortho.hal.EncodingType;
import dev.ortho.hal.Fence;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.Semaphore;
import dev.ortho.io.parameters.ParameterIndex;
import dev.ortho.modules.hal.HalModule;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.modules.io.parameters.ParameterModule;
import dev.ortho.vm.Context;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.ModuleDependency;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.Variant;
import dev.ortho.vm.VmList;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A loaded module ready to call: the module linked in one VM context after the {@code hal}
 * module over its devices (and the {@code io_parameters} module over its parameter archives)
 * when it needs them, with its initializers run. IREE's Python {@code SystemContext} plus a
 * module, in one object.
 *
 * <p>Calls copy the input {@link Tensor}s into new device buffers ({@code hal.buffer_view}s), run
 * the function, and copy every result back into a new host tensor, so no device memory escapes
 * and the caller owns every returned tensor. Functions with IREE's {@code coarse-fences} ABI get
 * a reached wait fence and a fresh signal fence appended; their results are read once the signal
 * fence is reached.
 *
 * <p>Ownership: the caller of {@link OrthoRuntime#load} owns the program and closes it (or its
 * runtime does). {@link #close()} never waits: calls already running finish normally, and the
 * context, parameter archives and devices are released when the last of them returns; calls
 * started after {@code close()} fail with FAILED_PRECONDITION.
 *
 * <p>Thread-safety: thread-safe. Any number of threads may call functions of one program at
 * once; each call has its own VM stack and its own input and output buffers, and the module
 * states (the program's globals, the {@code hal} module's devices) are shared as in IREE
 * ({@code ProgramTest} runs four threads on one program on both CPU devices).
 */
public final class Program implements AutoCloseable {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Instance instance;
    private final Module main;
    private final Context context;
    private final List<Device> devices;
    private final List<String> deviceUris;
    private final ParameterIndex parameters;
    private final Consumer<Program> onFree;
    /** The owner's reference plus one per call in flight; the last release frees everything. */
    private final AtomicInteger users = new AtomicInteger(1);
    private final AtomicBoolean closed = new AtomicBoolean();

    private Program(Instance instance, Module main, Context context, List<Device> devices, List<String> deviceUris,
            ParameterIndex parameters, Consumer<Program> onFree) {
        this.instance = instance;
        this.main = main;
        this.context = context;
        this.devices = devices;
        this.deviceUris = deviceUris;
        this.parameters = parameters;
        this.onFree = onFree;
    }

    /** Links {@code main} after the modules it needs; on failure releases what it created. */
    static Program open(Instance instance, DriverRegistry drivers, Module main, ProgramOptions options,
            Consumer<Program> onFree) {
        List<Device> devices = new ArrayList<>();
        List<String> uris = new ArrayList<>();
        ParameterIndex parameters = null;
        boolean halTypes = false;
        List<Module> modules = new ArrayList<>();
        try {
            if (uses(main, HalModule.NAME)) {
                uris.addAll(options.devices().isEmpty() ? List.of(defaultDevice(drivers)) : options.devices());
                for (String uri : uris) {
                    devices.add(drivers.createDevice(uri));
                }
                modules.add(HalModule.create(instance, devices));
                halTypes = true;
            }
            if (uses(main, ParameterModule.NAME)) {
                parameters = ParameterIndex.open(options.parameters());
                modules.add(ParameterModule.create(instance, parameters));
            }
            modules.add(main);
            Context context = Context.create(instance, modules.toArray(Module[]::new));
            return new Program(instance, main, context, List.copyOf(devices), List.copyOf(uris), parameters, onFree);
        } catch (RuntimeException e) {
            if (parameters != null) {
                parameters.close();
            }
            devices.forEach(Device::close);
            if (halTypes) {
                HalTypes.unregister(instance);
            }
            throw e;
        }
    }

    /** Whether {@code module} declares a dependency on, or imports from, module {@code name}. */
    private static boolean uses(Module module, String name) {
        return module.dependencies().stream().map(ModuleDependency::name).anyMatch(name::equals)
                || module.imports().stream().anyMatch(f -> f.name().startsWith(name + "."));
    }

    private static String defaultDevice(DriverRegistry drivers) {
        return drivers.enumerate().stream().map(DriverInfo::name).anyMatch("local-task"::equals)
                ? "local-task" : "local-sync";
    }

    /** The module's name ({@code module} for IREE-compiled programs). */
    public String name() {
        return main.name();
    }

    /** The device URIs of the {@code hal} module in {@code hal.devices.get} order (empty without it). */
    public List<String> devices() {
        return deviceUris;
    }

    /** Every exported function except the initializers ({@code __init}, …), in export order. */
    public List<FunctionSignature> functions() {
        List<FunctionSignature> list = new ArrayList<>();
        for (Function f : main.exports()) {
            if (!f.name().startsWith("__")) {
                list.add(signature(f));
            }
        }
        return list;
    }

    /**
     * The signature of export {@code name}.
     *
     * @throws StatusException NOT_FOUND naming the function and listing the exports
     */
    public FunctionSignature function(String name) {
        return signature(lookup(name));
    }

    private Function lookup(String name) {
        Function f = name == null ? null : main.lookupExport(name);
        if (f == null) {
            List<String> names = functions().stream().map(FunctionSignature::name).toList();
            throw new StatusException(StatusCode.NOT_FOUND, "no function `" + printable(String.valueOf(name))
                    + "` exported by module '" + printable(main.name()) + "' (exports: " + printable(names.toString())
                    + ")");
        }
        return f;
    }

    private static FunctionSignature signature(Function f) {
        boolean fences = isCoarseFences(f);
        String args = f.cconv().arguments().types();
        if (fences && args.endsWith("rr")) {
            args = args.substring(0, args.length() - 2);
        }
        return new FunctionSignature(f.name(), f.cconv().text(), kinds(args), kinds(f.cconv().results().types()),
                fences, f.attrs());
    }

    private static List<String> kinds(String types) {
        List<String> kinds = new ArrayList<>();
        for (char c : types.toCharArray()) {
            kinds.add(switch (c) {
                case 'i' -> "i32";
                case 'I' -> "i64";
                case 'f' -> "f32";
                case 'F' -> "f64";
                case 'r' -> "ref";
                default -> String.valueOf(c);
            });
        }
        return kinds;
    }

    private static boolean isCoarseFences(Function f) {
        return "coarse-fences".equals(f.attr("iree.abi.model"));
    }

    /**
     * Calls {@code function} with {@code inputs} and waits for its results: tensors for
     * {@code hal.buffer_view} results, rank-0 tensors for primitives, null for a null ref. The
     * inputs are only read during the call.
     *
     * @throws StatusException NOT_FOUND for an unknown function; INVALID_ARGUMENT if the input
     *     count or a primitive input's type does not match the signature; UNIMPLEMENTED for
     *     variadic functions or results that are neither tensors nor primitives; FAILED_PRECONDITION
     *     after {@link #close()}; the callee's failure, annotated with the function name
     */
    public List<Tensor> call(String function, Tensor... inputs) {
        acquire();
        try (Call call = new Call(lookup(function), inputs)) {
            try {
                Invocation.invoke(context, call.function, call.arguments, call.results);
                if (call.signal != null) {
                    call.signal.await(Timeout.infinite());
                }
            } catch (StatusException e) {
                throw e.annotate("invoking function '" + call.function.name() + "'");
            }
            return call.collect();
        } finally {
            releaseUser();
        }
    }

    /**
     * Starts {@code function} and returns at once with a future of its results (as
     * {@link #call}). Inputs are copied to the device before this method returns. A
     * coarse-fences function is invoked on the calling thread (it returns once its work is
     * queued) and the future is completed from its signal fence: the fence's timepoint schedules
     * the copy of the results on {@code ForkJoinPool.commonPool()}, which then completes it.
     * Any other function runs as an asynchronous invocation on the common pool that yields
     * instead of blocking while it waits for the device. No thread ever blocks on the call.
     * {@link #callAsync(Executor, String, Tensor...)} uses another executor.
     *
     * @throws StatusException synchronously for what {@link #call} rejects before running
     *     (unknown function, bad inputs, closed program); failures of the call itself complete
     *     the future exceptionally with the {@link StatusException}
     */
    public CompletableFuture<List<Tensor>> callAsync(String function, Tensor... inputs) {
        return callAsync(null, function, inputs);
    }

    /**
     * As {@link #callAsync(String, Tensor...)}, with the invocation of a non-coarse-fences
     * function and the copying of results run on {@code executor} (null: the common pool). The
     * executor should hand tasks to threads of its own: one that runs them inline (as
     * {@code Runnable::run} does) would resume invocations and copy results inside a device's
     * semaphore callback, on a device worker, unless the device is {@code local-sync}.
     */
    public CompletableFuture<List<Tensor>> callAsync(Executor executor, String function, Tensor... inputs) {
        acquire();
        Call call;
        try {
            call = new Call(lookup(function), inputs);
        } catch (RuntimeException e) {
            releaseUser();
            throw e;
        }
        CompletableFuture<Void> done;
        try {
            if (call.signal != null) {
                Invocation.invoke(context, call.function, call.arguments, call.results);
                done = call.signal.toCompletableFuture();
            } else {
                done = Invocation.invokeAsync(context, call.function, call.arguments, call.results,
                        executor != null ? executor : ForkJoinPool.commonPool());
            }
        } catch (RuntimeException e) {
            done = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<List<Tensor>> results = new CompletableFuture<>();
        java.util.function.BiConsumer<Void, Throwable> finish = (ignored, failure) -> {
            try (call) {
                if (failure == null) {
                    results.complete(call.collect());
                } else {
                    Throwable cause = failure instanceof java.util.concurrent.CompletionException c
                            && c.getCause() != null ? c.getCause() : failure;
                    if (cause instanceof StatusException status) {
                        status.annotate("invoking function '" + call.function.name() + "'");
                    }
                    results.completeExceptionally(cause);
                }
            } catch (RuntimeException e) {
                results.completeExceptionally(e);
            } finally {
                releaseUser();
            }
        };
        // The signal fence (or the invocation) completes `done` on a device or pool thread; the
        // copy-out and the release (which may free the program and close its devices) move to
        // the executor, so they never run inside a device's semaphore callback.
        done.whenCompleteAsync(finish, executor != null ? executor : ForkJoinPool.commonPool());
        return results;
    }

    /** One call's argument and result lists, its fences, and the conversions around them. */
    private final class Call implements AutoCloseable {
        final Function function;
        final VmList arguments;
        final VmList results = VmList.ofVariants(4);
        Semaphore semaphore;
        Fence signal;

        Call(Function function, Tensor[] inputs) {
            this.function = function;
            if (function.cconv().arguments().isVariadic()) {
                results.release();
                throw new StatusException(StatusCode.UNIMPLEMENTED, "variadic function `" + function.name()
                        + "` cannot be called through the embedding API");
            }
            String types = function.cconv().arguments().types();
            boolean fences = isCoarseFences(function);
            if (fences) {
                if (!types.endsWith("rr") || devices.isEmpty()) {
                    results.release();
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, "function `" + function.name()
                            + "` declares iree.abi.model=coarse-fences but "
                            + (devices.isEmpty() ? "its module does not use the hal module"
                                    : "its arguments (cconv '" + function.cconv().text() + "') do not end in two fences"));
                }
                types = types.substring(0, types.length() - 2);
            }
            if (inputs.length != types.length()) {
                results.release();
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "function `" + function.name() + "` (cconv '"
                        + function.cconv().text() + "') takes " + types.length() + " inputs but " + inputs.length
                        + " were given");
            }
            arguments = VmList.ofVariants(types.length() + 2);
            try {
                for (int i = 0; i < inputs.length; i++) {
                    push(types.charAt(i), i, inputs[i]);
                }
                if (fences) {
                    Fence wait = new Fence();
                    arguments.pushRefMove(HalRefs.wrap(wait));
                    wait.release();
                    semaphore = devices.get(0).createSemaphore(0);
                    signal = Fence.at(semaphore, 1);
                    arguments.pushRefRetain(HalRefs.wrap(signal));
                }
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }

        private void push(char type, int index, Tensor input) {
            if (input == null) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "input " + index + " of `" + function.name()
                        + "` is null");
            }
            switch (type) {
                case 'i' -> arguments.pushI32(scalar(input, index, 32, true).get(I32, 0));
                case 'I' -> arguments.pushI64(scalar(input, index, 64, true).get(I64, 0));
                case 'f' -> arguments.pushF32(scalar(input, index, 32, false).get(F32, 0));
                case 'F' -> arguments.pushF64(scalar(input, index, 64, false).get(F64, 0));
                case 'r' -> arguments.pushRefMove(HalRefs.wrap(upload(input)));
                default -> throw new StatusException(StatusCode.UNIMPLEMENTED, "input " + index + " of `"
                        + function.name() + "` has cconv type '" + type + "', which the embedding API cannot pass");
            }
        }

        private MemorySegment scalar(Tensor input, int index, int bits, boolean integer) {
            int type = input.elementType();
            boolean kind = integer ? ElementType.isInteger(type) : ElementType.numericalType(type)
                    == ElementType.NUMERICAL_TYPE_FLOAT_IEEE;
            if (input.elementCount() != 1 || !kind || ElementType.bitCount(type) != bits) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "input " + index + " of `" + function.name()
                        + "` must be one " + (integer ? "i" : "f") + bits + " value, got "
                        + Tensor.describe(input.shape(), type));
            }
            return input.contents();
        }

        private BufferView upload(Tensor input) {
            Device device = devices.isEmpty() ? null : devices.get(0);
            if (device == null) {
                throw new StatusException(StatusCode.FAILED_PRECONDITION, "function `" + function.name()
                        + "` takes a ref but module '" + main.name() + "' does not use the hal module");
            }
            MemorySegment contents = input.contents();
            BufferParams params = new BufferParams(MemoryType.DEVICE_LOCAL, MemoryAccess.ALL,
                    BufferUsage.DEFAULT | BufferUsage.MAPPING_SCOPED, 0, 0);
            try (Buffer buffer = device.allocator().allocateBuffer(params, contents.byteSize())) {
                BufferView view = BufferView.create(buffer, input.shape(), input.elementType(),
                        EncodingType.DENSE_ROW_MAJOR);
                try {
                    if (contents.byteSize() > 0) {
                        buffer.write(0, contents);
                    }
                } catch (RuntimeException e) {
                    view.release();
                    throw e;
                }
                return view;
            }
        }

        /** The results as host tensors (null for a null ref). */
        List<Tensor> collect() {
            List<Tensor> tensors = new ArrayList<>(results.size());
            for (int i = 0; i < results.size(); i++) {
                tensors.add(toTensor(i, results.getVariant(i)));
            }
            return Collections.unmodifiableList(tensors);
        }

        private Tensor toTensor(int index, Variant value) {
            if (value.isEmpty() || value.isRef() && value.ref() == null) {
                return null;
            }
            if (value.isValue()) {
                return switch (value.valueType()) {
                    case I32 -> Tensor.of(new int[] {value.asI32()});
                    case I64 -> Tensor.of(new long[] {value.asI64()});
                    case F32 -> Tensor.of(new float[] {value.asF32()});
                    case F64 -> Tensor.of(new double[] {value.asF64()});
                    default -> throw new StatusException(StatusCode.UNIMPLEMENTED, "result " + index + " of `"
                            + function.name() + "` is a " + value.valueType() + " value");
                };
            }
            RefObject ref = value.ref();
            if (!value.refType().name().equals(HalTypes.BUFFER_VIEW.name())) {
                throw new StatusException(StatusCode.UNIMPLEMENTED, "result " + index + " of `" + function.name()
                        + "` is a " + value.refType().name() + "; the embedding API returns only buffer views and"
                        + " primitives");
            }
            BufferView view = HalRefs.bufferView(ref);
            MemorySegment host = MemorySegment.ofArray(new byte[Math.toIntExact(view.byteLength())]);
            if (view.byteLength() > 0) {
                view.buffer().read(0, host);
            }
            return Tensor.of(host, view.elementType(), view.shape());
        }

        @Override
        public void close() {
            if (arguments != null) {
                arguments.release();
            }
            results.release();
            if (signal != null) {
                signal.release();
            }
            if (semaphore != null) {
                semaphore.close();
            }
        }
    }

    private void acquire() {
        while (true) {
            int count = users.get();
            if (count == 0 || closed.get()) {
                throw new StatusException(StatusCode.FAILED_PRECONDITION, "program '" + main.name() + "' is closed");
            }
            if (users.compareAndSet(count, count + 1)) {
                return;
            }
        }
    }

    private void releaseUser() {
        if (users.decrementAndGet() == 0) {
            free();
        }
    }

    /**
     * Closes the program: no new call starts; the context, parameter archives and devices are
     * released now, or when the last call in flight returns. Idempotent; never waits.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        releaseUser();
    }

    private void free() {
        try {
            context.close();
        } finally {
            if (parameters != null) {
                parameters.close();
            }
            devices.forEach(Device::close);
            if (!devices.isEmpty()) {
                HalTypes.unregister(instance);
            }
            onFree.accept(this);
        }
    }
}
