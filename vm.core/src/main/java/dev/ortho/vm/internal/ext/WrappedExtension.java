package dev.ortho.vm.internal.ext;

import dev.ortho.vm.spi.InstructionExtension;

/**
 * An instruction extension that only forwards to another one (the Declarative Services
 * components publishing the built-in extensions). A bytecode module executes with the wrapped
 * extension itself, so neither the interpreter nor the compiler pays for the forwarding, and the
 * compiler recognizes the built-in ExtF32/ExtF64 extensions and emits their ops inline.
 */
public interface WrappedExtension {
    /** The extension every call is forwarded to; never null, never itself a wrapper. */
    InstructionExtension unwrap();
}
