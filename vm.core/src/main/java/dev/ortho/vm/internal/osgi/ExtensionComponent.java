package dev.ortho.vm.internal.osgi;

import dev.ortho.vm.internal.ext.WrappedExtension;
import dev.ortho.vm.spi.ExtensionMachine;
import dev.ortho.vm.spi.InstructionExtension;
import dev.ortho.vm.spi.OpDescriptor;
import java.util.List;

/**
 * The body of a component that publishes a built-in {@link InstructionExtension}: every call goes
 * to the plain extension it wraps. Subclasses carry the {@code @Component} annotation with the
 * extension's service properties. Stateless and thread-safe if the extension is.
 */
abstract class ExtensionComponent implements InstructionExtension, WrappedExtension {
    private final InstructionExtension delegate;

    /** @param delegate the extension that does the work; owned by this component */
    ExtensionComponent(InstructionExtension delegate) {
        this.delegate = delegate;
    }

    @Override
    public final InstructionExtension unwrap() {
        return delegate;
    }

    @Override
    public final String name() {
        return delegate.name();
    }

    @Override
    public final int prefix() {
        return delegate.prefix();
    }

    @Override
    public final int feature() {
        return delegate.feature();
    }

    @Override
    public final List<OpDescriptor> ops() {
        return delegate.ops();
    }

    @Override
    public final void execute(int opcode, ExtensionMachine machine) {
        delegate.execute(opcode, machine);
    }
}
