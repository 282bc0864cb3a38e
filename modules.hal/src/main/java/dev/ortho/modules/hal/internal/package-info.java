/**
 * The {@code hal} VM module, version 7 (private): exposes HAL devices to VM programs through a ModuleProvider service. Exports nothing.
 */
package dev.ortho.modules.hal.internal;
