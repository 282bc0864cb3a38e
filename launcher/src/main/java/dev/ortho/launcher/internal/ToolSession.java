package dev.ortho.launcher.internal;

import dev.ortho.hal.AllocatorStatistics;
import dev.ortho.hal.Device;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.io.parameters.ParameterIndex;
import dev.ortho.modules.hal.HalModule;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.modules.io.parameters.ParameterModule;
import dev.ortho.vm.Context;
import dev.ortho.vm.Function;
import dev.ortho.vm.HostMemoryLimit;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;
import dev.ortho.vm.ModuleDependency;
import java.util.ArrayList;
import java.util.List;

/**
 * A context over {@code modules} (registered in order), preceded by the {@code hal} module
 * over the devices {@code deviceUris} (or the {@link #defaultDevice default device}) when any module
 * needs it, and by the {@code io_parameters} module over the {@code parameterSpecs}
 * ({@code --parameters=[scope=]file.irpa}, opened only then, as IREE's tools) when any module
 * needs that; closing releases the context, then the parameter files and the devices.
 *
 * <p>Not thread-safe; one tool run at a time.
 */
final class ToolSession implements AutoCloseable {
    private final Instance instance;
    final List<Device> devices = new ArrayList<>();
    final List<String> deviceNames = new ArrayList<>();
    final Context context;
    private ParameterIndex parameters;
    private boolean contextClosed;
    /** Whether HalModule.create registered the hal types once more (dropped on close). */
    private boolean halTypesRegistered;

    ToolSession(Instance instance, DriverRegistry drivers, List<Module> modules, List<String> deviceUris) {
        this(instance, drivers, modules, deviceUris, List.of(), HostMemoryLimit.UNLIMITED);
    }

    /**
     * As {@link #ToolSession(Instance, DriverRegistry, List, List)}, with the {@code --parameters} archives
     * ({@code [scope=]path}) and the programs' lists and buffers charged to {@code hostMemoryLimit}.
     */
    ToolSession(Instance instance, DriverRegistry drivers, List<Module> modules, List<String> deviceUris,
            List<String> parameterSpecs, HostMemoryLimit hostMemoryLimit) {
        this.instance = instance;
        List<Module> all = new ArrayList<>();
        try {
            if (needs(modules, HalModule.NAME)) {
                for (String uri : deviceUris.isEmpty() ? List.of(defaultDevice(drivers)) : deviceUris) {
                    devices.add(drivers.createDevice(uri));
                    deviceNames.add(uri);
                }
                all.add(HalModule.create(instance, devices));
                halTypesRegistered = true;
            }
            if (needs(modules, ParameterModule.NAME)) {
                parameters = ParameterIndex.open(parameterSpecs);
                all.add(ParameterModule.create(instance, parameters));
            }
            all.addAll(modules);
            context = Context.create(instance, hostMemoryLimit, all.toArray(Module[]::new));
        } catch (RuntimeException e) {
            closeParameters();
            closeDevices();
            throw e;
        }
    }

    private void closeParameters() {
        if (parameters != null) {
            parameters.close();
            parameters = null;
        }
    }

    /** The first device (IREE's tools allocate inputs there), or null without the hal module. */
    Device device() {
        return devices.isEmpty() ? null : devices.get(0);
    }

    /** The allocator statistics of every device, as IREE's {@code --print_statistics}. */
    String statistics() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < devices.size(); i++) {
            AllocatorStatistics stats = devices.get(i).allocator().statistics();
            text.append("Device: ").append(deviceNames.get(i)).append('\n')
                    .append("[[ iree_hal_allocator_t memory statistics ]]\n")
                    .append(String.format("  HOST_LOCAL: %12dB peak / %12dB allocated / %12dB freed / %12dB live%n",
                            0L, 0L, 0L, 0L))
                    .append(String.format("DEVICE_LOCAL: %12dB peak / %12dB allocated / %12dB freed / %12dB live%n",
                            stats.bytesPeak(), stats.bytesAllocated(), stats.bytesFreed(), stats.bytesLive()))
                    .append('\n');
        }
        return text.toString();
    }

    /** Releases the context (idempotent); the devices stay open for {@link #statistics()}. */
    void closeContext() {
        if (!contextClosed) {
            contextClosed = true;
            context.close();
        }
    }

    @Override
    public void close() {
        try {
            closeContext();
        } finally {
            closeParameters();
            closeDevices();
        }
    }

    void closeDevices() {
        for (Device device : devices) {
            device.close();
        }
        devices.clear();
        if (halTypesRegistered) {
            halTypesRegistered = false;
            HalTypes.unregister(instance);
        }
    }

    /**
     * The device a run uses when no {@code --device=} is given: {@code local-task} if that driver
     * is registered, else {@code local-sync}.
     */
    static String defaultDevice(DriverRegistry drivers) {
        for (DriverInfo info : drivers.enumerate()) {
            if (info.name().equals("local-task")) {
                return "local-task";
            }
        }
        return "local-sync";
    }

    /** Whether any of {@code modules} depends on (or imports from) the module named {@code name}. */
    static boolean needs(List<Module> modules, String name) {
        for (Module module : modules) {
            for (ModuleDependency dependency : module.dependencies()) {
                if (dependency.name().equals(name)) {
                    return true;
                }
            }
            for (Function f : module.imports()) {
                if (f.name().startsWith(name + ".")) {
                    return true;
                }
            }
        }
        return false;
    }
}
