package dev.ortho.vm.spi;

import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import java.util.List;

/**
 * The instruction extensions vm.core ships (ExtF32, prefix 0xE0; ExtF64, prefix 0xE1) for code
 * that runs without a framework: inside OSGi they are {@link InstructionExtension} services
 * instead, which hosts should track. Stateless; thread-safe.
 */
public final class BuiltinExtensions {
    private BuiltinExtensions() {
    }

    /** New instances of ExtF32 and ExtF64, in prefix order; the caller owns the list. */
    public static List<InstructionExtension> all() {
        return List.of(new ExtF32Extension(), new ExtF64Extension());
    }
}
