package dev.ortho.vm.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.vm.bytecode.FeatureBits;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import org.junit.jupiter.api.Test;

/** The DS components publish the plain extensions with service properties that match them. */
class ExtensionComponentsTest {
    static void check(Class<? extends InstructionExtension> component, InstructionExtension plain, int feature)
            throws ReflectiveOperationException {
        InstructionExtension e = component.getDeclaredConstructor().newInstance();
        assertEquals(plain.prefix(), e.prefix());
        assertEquals(feature, e.feature());
        assertEquals(plain.ops(), e.ops());
        assertEquals(plain.name(), e.name());
    }

    @Test
    void componentsDelegateToThePlainExtensions() throws ReflectiveOperationException {
        check(ExtF32Component.class, new ExtF32Extension(), FeatureBits.EXT_F32);
        check(ExtF64Component.class, new ExtF64Extension(), FeatureBits.EXT_F64);
    }
}
