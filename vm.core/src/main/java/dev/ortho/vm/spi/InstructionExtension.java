package dev.ortho.vm.spi;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.List;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * An optional opcode set of the bytecode VM, selected in bytecode by a prefix byte (IREE's
 * ExtF32 is {@code 0xE0}, ExtF64 {@code 0xE1}). Registered as an OSGi service with properties
 * {@code vm.extension.prefix} and {@code vm.extension.feature}; a module whose requirements name
 * a feature no registered extension provides fails to load.
 *
 * <p>The assembler, disassembler and verifier use {@link #ops()}; the interpreter executes the
 * ops. Implementations are immutable and thread-safe.
 */
@ConsumerType
public interface InstructionExtension {
    /** Service property: the prefix byte (Integer, e.g. {@code 0xE0}). */
    String PREFIX = "vm.extension.prefix";
    /** Service property: the {@code FeatureBits} bit the extension provides (Integer). */
    String FEATURE = "vm.extension.feature";

    /** A short name for messages and listings ({@code ext_f32}). */
    String name();

    /** The prefix byte that selects this opcode set (0xE0–0xFF). */
    int prefix();

    /** The {@code FeatureBits} bit a module must declare to use these ops. */
    int feature();

    /** Every op of the set, opcodes unique. */
    List<OpDescriptor> ops();

    /**
     * Executes op {@code opcode} of this set: reads its operands from {@code machine} in the
     * order of its {@link OpDescriptor}, computes, and writes its results. Called by the
     * interpreter for every prefixed instruction, so implementations must not allocate on the
     * arithmetic paths. Only verified bytecode reaches here.
     *
     * @throws StatusException for run-time failures (null buffer, out-of-range element, …);
     *     UNIMPLEMENTED by default, for descriptor-only extensions
     */
    default void execute(int opcode, ExtensionMachine machine) {
        throw new StatusException(StatusCode.UNIMPLEMENTED,
                "instruction extension '" + name() + "' cannot execute opcode 0x" + Integer.toHexString(opcode));
    }
}
