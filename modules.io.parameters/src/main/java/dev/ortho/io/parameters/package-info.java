/**
 * IREE parameter archives and indices: {@link dev.ortho.io.parameters.ParameterArchive} reads an
 * {@code .irpa} file (memory-mapped, every range checked against the file),
 * {@link dev.ortho.io.parameters.ParameterIndex} groups parameters by scope and key, as IREE's
 * {@code --parameters=[scope=]file.irpa} flags do, and {@link dev.ortho.io.parameters.ParameterEntry}
 * is one data or splat parameter. Programs reach them through the {@code io_parameters} VM module
 * ({@code dev.ortho.modules.io.parameters.ParameterModule}).
 */
@Export
@Version("1.0.0")
package dev.ortho.io.parameters;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
