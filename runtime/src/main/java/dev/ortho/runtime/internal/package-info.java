/** The runtime bundle's DS component (private). */
package dev.ortho.runtime.internal;
