package dev.ortho.vm.internal.osgi;

import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.spi.InstructionExtension;
import org.osgi.service.component.annotations.Component;

/**
 * Registers IREE's ExtF32 opcode set (prefix 0xE0) as an {@link InstructionExtension}
 * service with the {@value InstructionExtension#PREFIX} and {@value InstructionExtension#FEATURE}
 * properties, so loaders in the framework can run modules that require {@code EXT_F32}.
 * Thin adapter: every call goes to a plain {@link ExtF32Extension}. Stateless and thread-safe.
 */
@Component(service = InstructionExtension.class,
        property = {InstructionExtension.PREFIX + ":Integer=224", InstructionExtension.FEATURE + ":Integer=1"})
public final class ExtF32Component extends ExtensionComponent {
    /** Wraps a new {@link ExtF32Extension}. */
    public ExtF32Component() {
        super(new ExtF32Extension());
    }
}
