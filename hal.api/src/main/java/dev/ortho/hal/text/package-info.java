/**
 * IREE's text forms of buffer views and their elements, the syntax of the tools' {@code --input=}
 * flags and printed results ({@code 2x2xf32=[1 2][3 4]}): {@link dev.ortho.hal.text.BufferViewText}
 * parses and formats segments, and parses into / formats from views on a device.
 *
 * <p>Follows IREE's {@code iree/hal/string_util.h} and {@code buffer_view_util.h} exactly
 * (number syntax, {@code %G} float printing, hex for opaque and sub-byte types, element limits).
 * Kept apart from {@code dev.ortho.hal} because only tools and the embedding API print or parse
 * values; drivers never need it. Errors are {@link dev.ortho.base.StatusException}s with IREE's
 * codes.
 */
@Export
@Version("1.0.0")
package dev.ortho.hal.text;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
