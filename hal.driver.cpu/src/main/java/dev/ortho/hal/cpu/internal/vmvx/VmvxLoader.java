package dev.ortho.hal.cpu.internal.vmvx;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import dev.ortho.hal.cpu.kernel.LoaderContext;
import dev.ortho.vm.Context;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.RefType;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.bytecode.ExecutionMode;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.spi.InstructionExtension;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Loads {@code vmvx-bytecode-fb} executables (IREE's VMVX module loader): the executable data is
 * an IREE bytecode module archive; every export but {@code __set_constants} is a dispatch function
 * (names starting with {@code __} included: IREE's compiler emits {@code __builtin_splat_i64} and
 * the like), its ordinal its position among them, with calling convention {@value #ENTRY_CCONV} (local memory buffer,
 * constants buffer, list of binding buffers, workgroup id, size and count xyz). Each dispatch
 * function's {@code binding_count}, {@code constant_count} and {@code local_memory} (bytes)
 * reflection attributes give its function info; an absent attribute means 0, as IREE's compiler
 * omits zero counts. An optional {@code __set_constants(!vm.buffer)} export receives the
 * executable-level constants once per worker context.
 *
 * <p>Preparation copies the data (the caller may free it afterwards), verifies the module, checks
 * every dispatch function and creates the first worker context, so that bad executables and
 * unresolvable imports fail here rather than in a dispatch. Contexts link the {@code vmvx}
 * module, then the given user modules, then the executable.
 *
 * <p>The CPU driver bundle registers one as an {@link ExecutableLoader} service; a device's
 * {@value #COMPILE_OPTION} option (see {@link #load(ExecutableParams, LoaderContext)}) chooses how
 * the dispatch functions of the executables it prepares run.
 *
 * <p>Immutable apart from the extension supplier's view; thread-safe.
 */
public final class VmvxLoader implements ExecutableLoader {
    /** The executable format name. */
    public static final String FORMAT = "vmvx-bytecode-fb";
    private static final Set<String> FORMATS = Set.of(FORMAT);
    /** IREE's {@code IREE_VMVX_ENTRY_SIGNATURE}. */
    public static final String ENTRY_CCONV = "0rrriiiiiiiii_v";
    /** The optional executable-constants export. */
    public static final String SET_CONSTANTS = "__set_constants";
    /** Largest accepted {@code binding_count} / {@code constant_count} (IREE stores them in 8 bits). */
    static final int MAX_COUNT = 255;
    /** Largest accepted {@code local_memory}: IREE's 16-bit page count of 4 KiB pages. */
    static final int MAX_LOCAL_MEMORY = 0xFFFF * 4096;

    /**
     * How dispatch functions run by default: compiled to JVM bytecode when the executable is
     * prepared (their workgroup loops are the hottest code Ortho runs; every IREE-compiled model
     * of {@code models/} gives IREE's results with them compiled, and the MLP's kernels run about
     * 4× faster than interpreted). Functions the compiler does not cover stay interpreted.
     */
    public static final ExecutionMode DEFAULT_KERNEL_EXECUTION = ExecutionMode.EAGER;

    /**
     * The device URI parameter and driver configuration property that choose how a CPU device
     * runs its VMVX dispatch functions: {@code off}, {@code lazy} or {@code eager} (see
     * {@link ExecutionMode}), e.g. {@code local-task://?vmvx_compile=off}.
     */
    public static final String COMPILE_OPTION = LoaderContext.VMVX_COMPILE;

    private final Instance instance;
    private final Supplier<? extends List<? extends InstructionExtension>> extensions;
    private final List<Module> commonModules;
    private final ExecutionMode kernelExecution;

    /**
     * A loader whose dispatch functions run as {@link #DEFAULT_KERNEL_EXECUTION} says.
     *
     * @param instance the VM instance whose types the executables' modules resolve against
     * @param extensions the instruction extensions currently available (ExtF32, …), asked at
     *     every preparation
     * @param userModules extra modules linked into every executable context after {@code vmvx}
     */
    public VmvxLoader(Instance instance, Supplier<? extends List<? extends InstructionExtension>> extensions,
            List<? extends Module> userModules) {
        this(instance, extensions, userModules, DEFAULT_KERNEL_EXECUTION);
    }

    /**
     * As {@link #VmvxLoader(Instance, Supplier, List)}, with the executables' modules run in
     * {@code kernelExecution} ({@link ExecutionMode#OFF}: always interpreted, the reference).
     */
    public VmvxLoader(Instance instance, Supplier<? extends List<? extends InstructionExtension>> extensions,
            List<? extends Module> userModules, ExecutionMode kernelExecution) {
        this.instance = Objects.requireNonNull(instance, "instance");
        this.extensions = Objects.requireNonNull(extensions, "extensions");
        this.kernelExecution = Objects.requireNonNull(kernelExecution, "kernelExecution");
        List<Module> modules = new ArrayList<>();
        modules.add(VmvxModule.create());
        modules.addAll(userModules);
        this.commonModules = List.copyOf(modules);
    }

    /** How this loader runs dispatch functions unless a device asks otherwise. */
    public ExecutionMode kernelExecution() {
        return kernelExecution;
    }

    /**
     * Parses a {@value #COMPILE_OPTION} value ({@code off}, {@code lazy}, {@code eager}; case-insensitive).
     *
     * @param source what the value came from, for the message (a device URI parameter, a property)
     * @throws StatusException INVALID_ARGUMENT naming the source and the value if it is none of them
     */
    public static ExecutionMode parseKernelExecution(String source, String text) {
        ExecutionMode mode = text == null ? null : ExecutionMode.parse(text.strip());
        if (mode == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, source + " " + COMPILE_OPTION + "='" + text
                    + "' is not one of off, lazy, eager");
        }
        return mode;
    }

    @Override
    public String toString() {
        return "vmvx-bytecode-fb loader";
    }

    @Override
    public Set<String> formats() {
        return FORMATS;
    }

    /**
     * Prepares {@code params} with dispatch functions run as the device's {@value #COMPILE_OPTION}
     * option says, or as {@link #kernelExecution()} says when the device has none.
     *
     * @throws StatusException INVALID_ARGUMENT for a malformed option; as
     *     {@link #load(ExecutableParams, ExecutionMode)}
     */
    @Override
    public VmvxExecutable load(ExecutableParams params, LoaderContext context) {
        String mode = context.option(COMPILE_OPTION);
        return load(params, mode == null ? kernelExecution : parseKernelExecution("device option", mode));
    }

    /** Prepares {@code params} with dispatch functions run as {@link #kernelExecution()} says. */
    public VmvxExecutable load(ExecutableParams params) {
        return load(params, kernelExecution);
    }

    /**
     * Prepares {@code params} (format {@value #FORMAT}), its dispatch functions run in
     * {@code execution} ({@link ExecutionMode#LAZY}: compiled on the thread, usually a task
     * executor worker, whose call or loop crosses the threshold; other workers keep interpreting
     * meanwhile).
     *
     * @throws StatusException INVALID_ARGUMENT for missing or corrupt data, a dispatch function
     *     with another calling convention, malformed attributes or executable constants that do
     *     not match {@code __set_constants}; UNIMPLEMENTED for a missing instruction extension;
     *     NOT_FOUND for an import no linked module provides; the failure of
     *     {@code __set_constants}
     */
    public VmvxExecutable load(ExecutableParams params, ExecutionMode execution) {
        Objects.requireNonNull(execution, "execution");
        if (params == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "executable params are null");
        }
        MemorySegment data = params.data();
        if (data == null || data.byteSize() == 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "vmvx-bytecode-fb executable data is empty");
        }
        if (data.byteSize() > Integer.MAX_VALUE - 8) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "vmvx-bytecode-fb executable of " + data.byteSize()
                    + " bytes exceeds the " + (Integer.MAX_VALUE - 8) + " byte limit");
        }
        byte[] copy = data.toArray(ValueLayout.JAVA_BYTE);
        ModuleDef def;
        try {
            def = BytecodeArchive.read(copy);
        } catch (StatusException e) {
            throw e;
        } catch (RuntimeException e) { // the reader must not fail like this; report it as bad data
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "vmvx-bytecode-fb archive is malformed: " + e, e);
        }
        BytecodeModule module = BytecodeModule.create(instance, def, List.copyOf(extensions.get()),
                BytecodeModule.Options.DEFAULT.withExecution(execution));
        List<Function> entries = new ArrayList<>();
        List<ExecutableFunctionInfo> infos = new ArrayList<>();
        Function setConstants = null;
        for (Function export : module.exports()) {
            if (export.name().equals(SET_CONSTANTS)) {
                setConstants = export; // called once per worker context, not dispatched
                continue;
            }
            // Every other export is a dispatch function, whatever its name: IREE's compiler names
            // its builtin dispatches __builtin_splat_i64, __builtin_fill_i64, ...
            if (!ENTRY_CCONV.equals(export.cconv().text())) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "executable entry point '" + export.name()
                        + "' does not match the expected calling convention; expected '" + ENTRY_CCONV
                        + "' but got '" + export.cconv().text() + "', possible ABI version mismatch");
            }
            entries.add(export);
            infos.add(new ExecutableFunctionInfo(export.name(), attr(export, "constant_count", MAX_COUNT),
                    attr(export, "binding_count", MAX_COUNT), 1, 1, 1, attr(export, "local_memory", MAX_LOCAL_MEMORY)));
        }
        int[] constants = params.constants() == null ? new int[0] : params.constants().clone();
        checkConstants(setConstants, constants);
        Function init = setConstants;
        Supplier<VmvxWorker> workers = () -> newWorker(module, init, constants);
        return new VmvxExecutable(def.name(), entries.toArray(Function[]::new),
                infos.toArray(ExecutableFunctionInfo[]::new), workers, workers.get());
    }

    private static void checkConstants(Function setConstants, int[] constants) {
        if (setConstants == null && constants.length > 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "executable has no executable-level constants but "
                    + constants.length + " constants were provided");
        }
        if (setConstants != null && constants.length == 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "executable requires executable-level constants but none were provided");
        }
        if (setConstants != null && !"0r_v".equals(setConstants.cconv().text())) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "executable's " + SET_CONSTANTS
                    + " has calling convention '" + setConstants.cconv().text() + "', expected '0r_v'");
        }
    }

    /** Creates a worker context and runs {@code __set_constants} in it. */
    private VmvxWorker newWorker(BytecodeModule module, Function setConstants, int[] constants) {
        Module[] modules = new Module[commonModules.size() + 1];
        commonModules.toArray(modules);
        modules[modules.length - 1] = module;
        Context context = Context.create(instance, modules);
        try {
            if (setConstants != null) {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment storage = arena.allocate(4L * constants.length, 4);
                    MemorySegment.copy(constants, 0, storage,
                            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0, constants.length);
                    VmList inputs = VmList.ofRefs(RefType.VM_BUFFER, 1);
                    inputs.pushRefMove(VmBuffer.wrap(VmBuffer.ACCESS_ORIGIN_HOST, storage.asReadOnly(), null));
                    Invocation.invoke(context, setConstants, inputs, null);
                    inputs.clear();
                }
            }
            return new VmvxWorker(context);
        } catch (RuntimeException e) {
            context.close();
            throw e;
        }
    }

    /** A non-negative decimal attribute of at most {@code max}, 0 when absent. */
    private static int attr(Function export, String key, int max) {
        String text = export.attr(key);
        if (text.isEmpty()) {
            return 0;
        }
        long value = -1;
        if (text.length() <= 10 && text.chars().allMatch(Character::isDigit)) {
            value = Long.parseLong(text);
        }
        if (value < 0 || value > max) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "executable entry point '" + export.name()
                    + "' attribute " + key + " = '" + text + "' is not an integer in [0, " + max + "]");
        }
        return (int) value;
    }
}
