package dev.ortho.runtime;

import dev.ortho.vm.bytecode.ExecutionMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How {@link OrthoRuntime#load} sets up a program: the devices of its {@code hal} module (device
 * URIs, IREE's {@code --device=}; none: {@code local-task} when that driver is registered, else
 * {@code local-sync}), its parameter archives (IREE's {@code --parameters=[scope=]file.irpa}) and
 * whether bytecode functions are interpreted or compiled to JVM classes ({@code --vm_compile}).
 * Devices and archives are used only when the module depends on {@code hal} or
 * {@code io_parameters}, as in IREE's tools. Immutable; thread-safe.
 *
 * @param devices device URIs in {@code hal.devices.get} order
 * @param parameters {@code [scope=]path.irpa} specs
 * @param execution interpreter or compiler for the program's own functions
 */
public record ProgramOptions(List<String> devices, List<String> parameters, ExecutionMode execution) {
    private static final ProgramOptions DEFAULTS = new ProgramOptions(List.of(), List.of(), ExecutionMode.OFF);

    /** Copies the lists; rejects nulls with a NullPointerException. */
    public ProgramOptions {
        devices = List.copyOf(devices);
        parameters = List.copyOf(parameters);
        Objects.requireNonNull(execution, "execution");
    }

    /** No devices named (the default device), no archives, interpreted. */
    public static ProgramOptions defaults() {
        return DEFAULTS;
    }

    /** These options with {@code uri} ({@code local-task}, {@code validation+local-sync://}, {@code remote://…}) added. */
    public ProgramOptions withDevice(String uri) {
        return new ProgramOptions(append(devices, uri), parameters, execution);
    }

    /** These options with the archive {@code spec} ({@code model=weights.irpa}) added. */
    public ProgramOptions withParameters(String spec) {
        return new ProgramOptions(devices, append(parameters, spec), execution);
    }

    /** These options with the program's functions run by {@code mode}. */
    public ProgramOptions withExecution(ExecutionMode mode) {
        return new ProgramOptions(devices, parameters, mode);
    }

    private static List<String> append(List<String> list, String value) {
        List<String> copy = new ArrayList<>(list);
        copy.add(Objects.requireNonNull(value));
        return copy;
    }
}
