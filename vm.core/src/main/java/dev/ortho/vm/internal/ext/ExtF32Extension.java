package dev.ortho.vm.internal.ext;

import dev.ortho.vm.bytecode.FeatureBits;
import dev.ortho.vm.internal.isa.CoreOps;
import dev.ortho.vm.internal.isa.ExtF32Ops;
import dev.ortho.vm.spi.InstructionExtension;
import dev.ortho.vm.spi.OpDescriptor;
import java.util.List;

/** IREE's ExtF32 opcode set: f32 arithmetic, compares, conversions, globals, lists, buffers. Stateless. */
public final class ExtF32Extension implements InstructionExtension {

    @Override
    public String name() {
        return "ext_f32";
    }

    @Override
    public int prefix() {
        return CoreOps.PREFIX_EXT_F32;
    }

    @Override
    public int feature() {
        return FeatureBits.EXT_F32;
    }

    @Override
    public List<OpDescriptor> ops() {
        return ExtF32Ops.DESCRIPTORS;
    }
}
