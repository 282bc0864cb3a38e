/** Thin Declarative Services adapters: the {@code remote} driver factory and the configured device server. */
package dev.ortho.hal.remote.internal.osgi;
