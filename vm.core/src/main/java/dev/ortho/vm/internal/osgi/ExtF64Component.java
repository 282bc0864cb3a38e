package dev.ortho.vm.internal.osgi;

import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import org.osgi.service.component.annotations.Component;

/**
 * Registers IREE's ExtF64 opcode set (prefix 0xE1) as an {@link InstructionExtension}
 * service with the {@value InstructionExtension#PREFIX} and {@value InstructionExtension#FEATURE}
 * properties, so loaders in the framework can run modules that require {@code EXT_F64}.
 * Thin adapter: every call goes to a plain {@link ExtF64Extension}. Stateless and thread-safe.
 */
@Component(service = InstructionExtension.class,
        property = {InstructionExtension.PREFIX + ":Integer=225", InstructionExtension.FEATURE + ":Integer=2"})
public final class ExtF64Component extends ExtensionComponent {
    /** Wraps a new {@link ExtF64Extension}. */
    public ExtF64Component() {
        super(new ExtF64Extension());
    }
}
