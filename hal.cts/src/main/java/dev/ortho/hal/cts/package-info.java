/**
 * HAL conformance test suites: abstract JUnit 5 classes written once and run by each driver
 * module against its device configurations ({@code local-sync}, {@code local-task},
 * {@code validation+local-task}, {@code remote}). A test artifact; never deployed as a bundle.
 */
package dev.ortho.hal.cts;
