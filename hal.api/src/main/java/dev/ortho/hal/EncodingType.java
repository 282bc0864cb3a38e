package dev.ortho.hal;

/**
 * Encoding of a buffer view's contents ({@code iree_hal_encoding_type_t}), with IREE's values.
 *
 * <p>IREE's text form carries no encoding: {@code dev.ortho.hal.text.BufferViewText} parses
 * every buffer view as {@link #DENSE_ROW_MAJOR} and formats without one. Not instantiable.
 */
public final class EncodingType {
    /** Unknown or unspecified encoding; the contents cannot be interpreted generically. */
    public static final int OPAQUE = 0;
    /** Densely packed row-major (numpy / C order): all elements contiguous. */
    public static final int DENSE_ROW_MAJOR = 1;

    private EncodingType() {
    }
}
