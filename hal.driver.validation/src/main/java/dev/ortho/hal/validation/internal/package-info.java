/**
 * The validating device wrapper (private): checks every HAL call and forwards to the wrapped device. Registered as a DeviceWrapper service; exports nothing.
 */
package dev.ortho.hal.validation.internal;
