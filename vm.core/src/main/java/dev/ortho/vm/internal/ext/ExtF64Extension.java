package dev.ortho.vm.internal.ext;

import dev.ortho.vm.bytecode.FeatureBits;
import dev.ortho.vm.internal.isa.CoreOps;
import dev.ortho.vm.internal.isa.ExtF64Ops;
import dev.ortho.vm.spi.InstructionExtension;
import dev.ortho.vm.spi.OpDescriptor;
import java.util.List;

/** IREE's ExtF64 opcode set: f64 arithmetic, compares, conversions, globals, lists, buffers. Stateless. */
public final class ExtF64Extension implements InstructionExtension {

    @Override
    public String name() {
        return "ext_f64";
    }

    @Override
    public int prefix() {
        return CoreOps.PREFIX_EXT_F64;
    }

    @Override
    public int feature() {
        return FeatureBits.EXT_F64;
    }

    @Override
    public List<OpDescriptor> ops() {
        return ExtF64Ops.DESCRIPTORS;
    }
}
