/**
 * The embedding API: run an IREE module from Java in a few lines, with or without a framework.
 *
 * <pre>{@code
 * try (OrthoRuntime runtime = OrthoRuntime.create();
 *      Program mlp = runtime.load(Path.of("mlp.vmfb"), ProgramOptions.defaults().withDevice("local-task"))) {
 *     List<Tensor> y = mlp.call("mlp", Tensor.of(new float[784], 1, 784));
 *     float[] probabilities = y.get(0).toFloatArray();
 * }
 * }</pre>
 *
 * <p>{@link dev.ortho.runtime.OrthoRuntime} owns the VM instance and the drivers (inside OSGi it
 * is a service over the {@code DriverRegistry} service); {@link dev.ortho.runtime.Program} is a
 * loaded module linked with the {@code hal} (and, when needed, {@code io_parameters}) module on
 * its devices; {@link dev.ortho.runtime.Tensor} carries host arrays in and out;
 * {@link dev.ortho.runtime.Npy} reads and writes NumPy files.
 */
@Export
@Version("1.0.0")
package dev.ortho.runtime;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
