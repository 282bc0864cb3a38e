/**
 * Implementation of the {@code hal} VM module: the exports (grouped by the HAL object they act
 * on), the ref wrapper, the per-context state and the DS adapter in {@code osgi}. Private.
 */
package dev.ortho.modules.hal.internal;
