/**
 * A sample HAL driver bundle used to prove runtime installation: it registers a
 * {@link dev.ortho.hal.spi.DriverFactory} for driver {@code sample}, whose driver lists one
 * device. It executes nothing; it exists for the integration tests and the README walkthrough.
 */
package dev.ortho.itest.sample;
