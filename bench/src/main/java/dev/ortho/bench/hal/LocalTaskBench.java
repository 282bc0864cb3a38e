package dev.ortho.bench.hal;

import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Driver;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.ExecutionStage;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.cpu.kernel.Kernel;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import java.lang.foreign.MemorySegment;
import java.util.List;

/** Creates local-task devices and executables for the HAL benchmarks. */
final class LocalTaskBench {

    private LocalTaskBench() {}

    /**
     * A local-task device with {@code workers} workers, one queue, the builtin and {@code extra}
     * libraries, and the URI parameters of the system property {@code ortho.bench.localTaskParams}
     * (e.g. {@code -Dortho.bench.localTaskParams=?task_caller_runs=0}; default none).
     */
    static Device device(int workers, KernelLibrary... extra) {
        return device(workers, System.getProperty("ortho.bench.localTaskParams", ""), extra);
    }

    /**
     * A local-task device with {@code workers} workers, one queue, the builtin and {@code extra}
     * libraries and the device URI parameters {@code params} (e.g. {@code "?task_caller_runs=0"};
     * empty for the defaults). The factory is left open: the caller closes the device.
     */
    static Device device(int workers, String params, KernelLibrary... extra) {
        CpuDrivers.Builder builder = CpuDrivers.builder().workerCount(workers);
        for (KernelLibrary library : extra) {
            builder.kernelLibrary(library);
        }
        try (Driver driver = builder.localTaskFactory().createDriver("local-task")) {
            return driver.createDevice(DeviceUri.parse("local-task://" + params));
        }
    }

    /** Prepares library {@code name} of {@code device}; the cache is released, the executable kept. */
    static Executable executable(Device device, String name) {
        try (ExecutableCache cache = device.createExecutableCache("bench")) {
            return cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT, JvmStaticFormat.encode(name),
                    new int[0]));
        }
    }

    /**
     * A recorded command buffer of {@code k} 1-tile dispatches of {@code executable}'s function 0,
     * each separated from the previous one by an execution barrier.
     */
    static CommandBuffer barrierChain(Device device, Executable executable, int k) {
        CommandBuffer commandBuffer = device.createCommandBuffer(0, CommandCategory.DISPATCH,
                Device.QUEUE_AFFINITY_ANY, 0);
        commandBuffer.begin();
        for (int i = 0; i < k; i++) {
            if (i > 0) {
                commandBuffer.executionBarrier(ExecutionStage.DISPATCH, ExecutionStage.DISPATCH, 0);
            }
            commandBuffer.dispatch(executable, 0, DispatchConfig.ofCount(1, 1, 1), MemorySegment.NULL,
                    new BufferRef[0], 0);
        }
        commandBuffer.end();
        return commandBuffer;
    }

    /** A one-function library (no constants, no bindings, workgroup size 1). */
    static KernelLibrary library(String name, String function, Kernel kernel) {
        List<KernelFunction> functions = List.of(new KernelFunction(
                new ExecutableFunctionInfo(function, 0, 0, 1, 1, 1, 0), kernel));
        return new KernelLibrary() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public List<KernelFunction> functions() {
                return functions;
            }
        };
    }
}
