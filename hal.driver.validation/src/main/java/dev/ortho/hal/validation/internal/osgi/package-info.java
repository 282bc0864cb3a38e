/** OSGi wiring of the validation wrapper (private): the DeviceWrapper service component. */
package dev.ortho.hal.validation.internal.osgi;
