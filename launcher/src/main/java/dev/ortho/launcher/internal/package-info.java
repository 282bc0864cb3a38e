/**
 * The {@code ortho} command line (private): subcommand dispatch, the Gogo console, and the
 * {@code hal:} shell commands. Runs inside the framework on the bnd launcher's main thread.
 *
 * <p>VM tools: {@link dev.ortho.launcher.internal.VmTools} implements {@code as-module},
 * {@code dump-module} ({@code DumpModuleTool}), {@code check-module}, {@code run-module} and {@code benchmark-module}
 * with IREE's flags and output formats; {@link dev.ortho.launcher.internal.VmShellCommands}
 * adds {@code vm:load} and {@code vm:invoke} to the shell.
 */
package dev.ortho.launcher.internal;
