/**
 * The {@code ortho} command line (private): subcommand dispatch, the Gogo console, and the
 * {@code hal:} shell commands. Runs inside the framework on the bnd launcher's main thread.
 */
package dev.ortho.launcher.internal;
