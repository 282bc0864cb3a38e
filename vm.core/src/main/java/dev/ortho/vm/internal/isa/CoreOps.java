package dev.ortho.vm.internal.isa;

import dev.ortho.vm.spi.OpDescriptor;
import java.util.List;

/**
 * The core opcode set (no prefix): opcode numbers, and the descriptors (mnemonics and operand
 * layouts, kept in {@link CoreOpDescriptors}). IREE bytecode 17.0 facts
 * ({@code vm/bytecode/isa/isa.json}), transcribed mechanically from it: change it only to follow IREE.
 */
public final class CoreOps {
    public static final int GLOBAL_LOAD_I32 = 0x00;
    public static final int GLOBAL_STORE_I32 = 0x01;
    public static final int GLOBAL_LOAD_INDIRECT_I32 = 0x02;
    public static final int GLOBAL_STORE_INDIRECT_I32 = 0x03;
    public static final int GLOBAL_LOAD_I64 = 0x04;
    public static final int GLOBAL_STORE_I64 = 0x05;
    public static final int GLOBAL_LOAD_INDIRECT_I64 = 0x06;
    public static final int GLOBAL_STORE_INDIRECT_I64 = 0x07;
    public static final int GLOBAL_LOAD_REF = 0x08;
    public static final int GLOBAL_STORE_REF = 0x09;
    public static final int GLOBAL_LOAD_INDIRECT_REF = 0x0A;
    public static final int GLOBAL_STORE_INDIRECT_REF = 0x0B;
    public static final int CONST_I32_ZERO = 0x0C;
    public static final int CONST_I32 = 0x0D;
    public static final int CONST_I64_ZERO = 0x0E;
    public static final int CONST_I64 = 0x0F;
    public static final int CONST_REF_ZERO = 0x10;
    public static final int CONST_REF_RODATA = 0x11;
    public static final int LIST_ALLOC = 0x12;
    public static final int LIST_RESERVE = 0x13;
    public static final int LIST_SIZE = 0x14;
    public static final int LIST_RESIZE = 0x15;
    public static final int LIST_GET_I32 = 0x16;
    public static final int LIST_SET_I32 = 0x17;
    public static final int LIST_GET_I64 = 0x18;
    public static final int LIST_SET_I64 = 0x19;
    public static final int LIST_GET_REF = 0x1A;
    public static final int LIST_SET_REF = 0x1B;
    public static final int SELECT_I32 = 0x1C;
    public static final int SELECT_I64 = 0x1D;
    public static final int SELECT_REF = 0x1E;
    public static final int SWITCH_I32 = 0x1F;
    public static final int SWITCH_I64 = 0x20;
    public static final int SWITCH_REF = 0x21;
    public static final int ADD_I32 = 0x22;
    public static final int SUB_I32 = 0x23;
    public static final int MUL_I32 = 0x24;
    public static final int DIV_I32_S = 0x25;
    public static final int DIV_I32_U = 0x26;
    public static final int REM_I32_S = 0x27;
    public static final int REM_I32_U = 0x28;
    public static final int FMAI32 = 0x29;
    public static final int ADD_I64 = 0x2A;
    public static final int SUB_I64 = 0x2B;
    public static final int MUL_I64 = 0x2C;
    public static final int DIV_I64_S = 0x2D;
    public static final int DIV_I64_U = 0x2E;
    public static final int REM_I64_S = 0x2F;
    public static final int REM_I64_U = 0x30;
    public static final int FMAI64 = 0x31;
    public static final int NOT_I32 = 0x32;
    public static final int AND_I32 = 0x33;
    public static final int OR_I32 = 0x34;
    public static final int XOR_I32 = 0x35;
    public static final int NOT_I64 = 0x36;
    public static final int AND_I64 = 0x37;
    public static final int OR_I64 = 0x38;
    public static final int XOR_I64 = 0x39;
    public static final int SHL_I32 = 0x3A;
    public static final int SHR_I32_S = 0x3B;
    public static final int SHR_I32_U = 0x3C;
    public static final int SHL_I64 = 0x3D;
    public static final int SHR_I64_S = 0x3E;
    public static final int SHR_I64_U = 0x3F;
    public static final int TRUNC_I32_I8 = 0x40;
    public static final int TRUNC_I32_I16 = 0x41;
    public static final int TRUNC_I64_I32 = 0x42;
    public static final int EXT_I8_I32_S = 0x43;
    public static final int EXT_I8_I32_U = 0x44;
    public static final int EXT_I16_I32_S = 0x45;
    public static final int EXT_I16_I32_U = 0x46;
    public static final int EXT_I32_I64_S = 0x47;
    public static final int EXT_I32_I64_U = 0x48;
    public static final int CMP_EQI32 = 0x49;
    public static final int CMP_NEI32 = 0x4A;
    public static final int CMP_LTI32_S = 0x4B;
    public static final int CMP_LTI32_U = 0x4C;
    public static final int CMP_NZI32 = 0x4D;
    public static final int CMP_EQI64 = 0x4E;
    public static final int CMP_NEI64 = 0x4F;
    public static final int CMP_LTI64_S = 0x50;
    public static final int CMP_LTI64_U = 0x51;
    public static final int CMP_NZI64 = 0x52;
    public static final int CMP_EQREF = 0x53;
    public static final int CMP_NEREF = 0x54;
    public static final int CMP_NZREF = 0x55;
    public static final int BRANCH = 0x56;
    public static final int COND_BRANCH = 0x57;
    public static final int CALL = 0x58;
    public static final int CALL_VARIADIC = 0x59;
    public static final int RETURN = 0x5A;
    public static final int FAIL = 0x5B;
    public static final int IMPORT_RESOLVED = 0x5C;
    public static final int YIELD = 0x5D;
    public static final int TRACE = 0x5E;
    public static final int PRINT = 0x5F;
    public static final int COND_BREAK = 0x60;
    public static final int BREAK = 0x61;
    public static final int BUFFER_LOAD_I8_U = 0x62;
    public static final int BUFFER_LOAD_I8_S = 0x63;
    public static final int BUFFER_LOAD_I16_U = 0x64;
    public static final int BUFFER_LOAD_I16_S = 0x65;
    public static final int BUFFER_LOAD_I32 = 0x66;
    public static final int BUFFER_LOAD_I64 = 0x67;
    public static final int BUFFER_STORE_I8 = 0x68;
    public static final int BUFFER_STORE_I16 = 0x69;
    public static final int BUFFER_STORE_I32 = 0x6A;
    public static final int BUFFER_STORE_I64 = 0x6B;
    public static final int BUFFER_ALLOC = 0x6C;
    public static final int BUFFER_CLONE = 0x6D;
    public static final int BUFFER_LENGTH = 0x6E;
    public static final int BUFFER_COPY = 0x6F;
    public static final int BUFFER_COMPARE = 0x70;
    public static final int BUFFER_FILL_I8 = 0x71;
    public static final int BUFFER_FILL_I16 = 0x72;
    public static final int BUFFER_FILL_I32 = 0x73;
    public static final int BUFFER_FILL_I64 = 0x74;
    public static final int CTLZ_I32 = 0x75;
    public static final int CTLZ_I64 = 0x76;
    public static final int ABS_I32 = 0x77;
    public static final int ABS_I64 = 0x78;
    public static final int BLOCK = 0x79;
    public static final int MIN_I32_S = 0x7A;
    public static final int MIN_I32_U = 0x7B;
    public static final int MAX_I32_S = 0x7C;
    public static final int MAX_I32_U = 0x7D;
    public static final int MIN_I64_S = 0x7E;
    public static final int MIN_I64_U = 0x7F;
    public static final int MAX_I64_S = 0x80;
    public static final int MAX_I64_U = 0x81;
    public static final int CAST_ANY_REF = 0x82;
    public static final int BRANCH_TABLE = 0x83;
    public static final int BUFFER_HASH = 0x84;
    public static final int DISCARD_REFS = 0x85;
    public static final int ASSIGN_REF = 0x86;
    public static final int CALL_YIELDABLE = 0x87;
    public static final int CALL_VARIADIC_YIELDABLE = 0x88;
    public static final int PREFIX_EXT_F32 = 0xE0;
    public static final int PREFIX_EXT_F64 = 0xE1;

    /**
     * Descriptors of every instruction with a mnemonic, in opcode order (the operand layouts are
     * in {@link CoreOpDescriptors}).
     */
    public static final List<OpDescriptor> DESCRIPTORS = CoreOpDescriptors.DESCRIPTORS;

    private CoreOps() {
    }
}
