package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.hal.Device;
import dev.ortho.modules.hal.HalModule;
import dev.ortho.vm.Context;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.VmList;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.BytecodeModule;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The per-call garbage of the op-zoo models of {@code models/} (tiny IREE-compiled graphs whose
 * time per call is the HAL module's and the devices' fixed costs) on {@code local-sync}: what
 * {@code ortho benchmark-module} calls in its loop, measured with the calling thread's allocation
 * counter, best of several rounds after warm-up (local-sync runs everything on the caller).
 *
 * <p>IREE allocates per call what the program asks for (buffer views, subspans, fences,
 * semaphores, the transient buffer) and nothing else. Before the fixed costs were cut (issue 16,
 * the {@code zoosync} work) Ortho also built message strings for every valid binding, a second
 * buffer object per queue alloca, a new dispatch state, cache entry and {@code vm.buffer} views
 * per dispatch per call (the cache keyed on buffer objects, which a queue alloca makes anew on
 * every call) and copies of a fence's arrays per use: 10.6 KB per {@code zoo_cast} call and
 * 4.2 KB per {@code zoo_transpose} call; 5.2 and 2.9 KB after (most of the rest: the compiled
 * kernels' register arrays per workgroup, the semaphores' frontier tables, the views and
 * buffers IREE makes too). Then (issue 16, {@code zoo3}) compiled kernels stopped allocating
 * their register arrays per workgroup call, a semaphore signalled without a frontier stopped
 * allocating one, and a wait on reached timepoints stopped building a waiter: 4.1 and 2.25 KB.
 * Then (issue 16, branch {@code alloc}) {@code buffer_view.create} stopped making the subspan of
 * a view nobody asks the buffer of (every result of a compiled function), {@code fence.create}
 * hands out pooled fences moved on to a new value, local-sync's default-pool alloca binds memory
 * under one lease object, and a VMVX worker keeps the views of 32 dispatches instead of 8
 * ({@code zoo_int} runs 10 per call and rebuilt all of them on every call). Measured here on main
 * and on the branch: zoo_cast 3,168 → 1,648 bytes, zoo_transpose 1,480 → 672, zoo_int 5,408 →
 * 2,088, mlp b1 3,408 → 2,456–2,576 (all four failed the bounds below on main).
 * The bounds sit between before and after, with room for a loaded machine whose best round still
 * runs less optimised code.
 */
class ZooCallAllocationTest {
    private static final Path MODELS = Path.of("..", "models").toAbsolutePath().normalize();

    @ParameterizedTest(name = "{0}/{1}")
    @CsvSource({
        "zoo_cast,      default, 2, 2000, 2400",
        "zoo_transpose, default, 1, 2000, 1100",
        "zoo_int,       default, 4, 2000, 3200",
        "mlp,           b1,      1,  200, 3000",
    })
    void perCallGarbageStaysBelowTheBound(String model, String inputCase, int inputs, int calls, long bound) {
        long perCall = bytesPerCall(model, inputCase, inputs, calls);
        assertTrue(perCall < bound, model + " allocates " + perCall + " bytes per call on local-sync (bound "
                + bound + ")");
    }

    /** Best over rounds of the bytes the calling thread allocates per call of {@code model}. */
    static long bytesPerCall(String model, String inputCase, int inputCount, int calls) {
        Instance instance = new Instance();
        try (Device device = IreeCompiledModelsTest.registry().createDevice("local-sync")) {
            Module hal = HalModule.create(instance, List.of(device));
            Module program = BytecodeModule.create(instance,
                    BytecodeArchive.read(MODELS.resolve("vmfb/" + model + ".vmvx.vmfb")), HalPrograms.EXTENSIONS);
            try (Context context = Context.create(instance, hal, program);
                    FunctionIo io = new FunctionIo(device, false)) {
                Function function = context.resolveFunction("module." + model);
                String[] specs = new String[inputCount];
                for (int i = 0; i < inputCount; i++) {
                    specs[i] = "@" + MODELS.resolve("data/" + model + "/" + inputCase + "/input" + i + ".npy");
                }
                VmList in = io.parse("r".repeat(inputCount), List.of(specs));
                VmList out = VmList.ofVariants(8);
                try {
                    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
                    long best = Long.MAX_VALUE;
                    for (int round = 0; round < 12; round++) {
                        long before = threads.getCurrentThreadAllocatedBytes();
                        for (int n = 0; n < calls; n++) {
                            out.clear();
                            Invocation.invoke(context, function, in, out);
                        }
                        best = Math.min(best, (threads.getCurrentThreadAllocatedBytes() - before) / calls);
                    }
                    System.out.println("ZooCallAllocationTest: " + model + "/" + inputCase + " " + best
                            + " bytes per call");
                    return best;
                } finally {
                    out.release();
                    in.release();
                }
            }
        }
    }
}
