package dev.ortho.hal.cpu.internal.executable;

import dev.ortho.hal.cpu.kernel.KernelExecutable;

/**
 * An executable prepared by a local CPU device's executable cache: what the device's dispatch
 * checks accept. The builtin formats implement it directly; executables of other loaders are
 * wrapped ({@link ForeignExecutable}). Thread-safe.
 */
public interface LocalExecutable extends KernelExecutable {
}
