package dev.ortho.vm.spi;

import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import org.osgi.annotation.versioning.ProviderType;

/**
 * What an {@link InstructionExtension} sees while executing one of its instructions: an operand
 * decoder positioned just after the opcode byte, the current frame's register banks and the
 * module state's globals (IREE's dispatch locals {@code bytecode_data}, {@code pc},
 * {@code regs_i32}, {@code regs_ref} and {@code rwdata_storage}).
 *
 * <p>The instruction was verified against the extension's {@link OpDescriptor} before the module
 * ran, so register ordinals are within the frame and 64-bit registers are aligned pairs; reading
 * operands in descriptor order is all an implementation has to do. Implemented by the interpreter,
 * valid only during {@link InstructionExtension#execute}, reused across instructions (never keep
 * it). Not thread-safe.
 */
@ProviderType
public interface ExtensionMachine {
    /** Reads an unsigned 8-bit operand. */
    int readU8();

    /** Reads an unsigned 16-bit operand (register ordinals, lengths). */
    int readU16();

    /** Reads a 32-bit operand (immediates, global offsets, ordinals). */
    int readI32();

    /** Reads a 64-bit immediate. */
    long readI64();

    /** Reads the size of a register list after aligning to its 2-byte boundary; its entries follow as {@link #readU16()}. */
    int readListSize();

    /** The i32 register {@code reg}. */
    int i32(int reg);

    /** Writes the i32 register {@code reg}. */
    void setI32(int reg, int value);

    /** The i64 held in the aligned register pair starting at {@code reg}. */
    long i64(int reg);

    /** Writes the aligned register pair starting at {@code reg}. */
    void setI64(int reg, long value);

    /** The ref in ref register {@code ordinal} (type and move bits ignored); borrowed. */
    RefObject ref(int ordinal);

    /**
     * The buffer in ref register {@code ordinal}.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT if the register is null or holds another type
     */
    VmBuffer buffer(int ordinal);

    /**
     * The list in ref register {@code ordinal}.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT if the register is null or holds another type
     */
    VmList list(int ordinal);

    /** Loads 4 bytes of module global storage at a verified {@code byteOffset}. */
    int globalI32(int byteOffset);

    /** Stores 4 bytes of module global storage at a verified {@code byteOffset}. */
    void setGlobalI32(int byteOffset, int value);

    /** Loads 8 bytes of module global storage at a verified {@code byteOffset}. */
    long globalI64(int byteOffset);

    /** Stores 8 bytes of module global storage at a verified {@code byteOffset}. */
    void setGlobalI64(int byteOffset, long value);

    /**
     * Checks a run-time (indirect) global access of {@code length} bytes at {@code byteOffset}.
     *
     * @throws dev.ortho.base.StatusException OUT_OF_RANGE if it leaves the module's global storage
     */
    void checkGlobalRange(int byteOffset, int length);
}
