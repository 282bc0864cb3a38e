package dev.ortho.vm.internal.osgi;

import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.spi.ExtensionMachine;
import dev.ortho.vm.spi.InstructionExtension;
import dev.ortho.vm.spi.OpDescriptor;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/**
 * Registers IREE's ExtF32 opcode set (prefix 0xE0) as an {@link InstructionExtension}
 * service with the {@value InstructionExtension#PREFIX} and {@value InstructionExtension#FEATURE}
 * properties, so loaders in the framework can run modules that require {@code EXT_F32}.
 * Thin adapter: every call goes to a plain {@link ExtF32Extension}. Stateless and thread-safe.
 */
@Component(service = InstructionExtension.class,
        property = {InstructionExtension.PREFIX + ":Integer=224", InstructionExtension.FEATURE + ":Integer=1"})
public final class ExtF32Component implements InstructionExtension {
    private final ExtF32Extension delegate = new ExtF32Extension();

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public int prefix() {
        return delegate.prefix();
    }

    @Override
    public int feature() {
        return delegate.feature();
    }

    @Override
    public List<OpDescriptor> ops() {
        return delegate.ops();
    }

    @Override
    public void execute(int opcode, ExtensionMachine machine) {
        delegate.execute(opcode, machine);
    }
}
