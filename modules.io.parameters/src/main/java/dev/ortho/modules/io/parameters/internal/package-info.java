/**
 * Implementation of the {@code io_parameters} VM module: the exports, the queue operations they
 * issue, the per-context state and the DS adapter in {@code osgi}. Private.
 */
package dev.ortho.modules.io.parameters.internal;
