package dev.ortho.vm.bytecode;

import static dev.ortho.vm.bytecode.Interpreter.*;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Context;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.ValueType;
import dev.ortho.vm.HostMemoryLimit;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import dev.ortho.vm.internal.isa.CoreOps;

/**
 * The out-of-line instructions of {@link Interpreter}: integer ops beyond the hottest ones,
 * globals, lists, selects and switches, and buffers. Each takes the absolute pc of its opcode and
 * returns the pc of the next instruction. Stateless.
 */
final class InterpreterOps {
    private InterpreterOps() {
    }

    static int intOp(byte[] c, int pc, int[] r) {
        int op = c[pc] & 0xFF;
        switch (op) {
            case CoreOps.NOT_I32, CoreOps.CTLZ_I32, CoreOps.ABS_I32, CoreOps.TRUNC_I32_I8, CoreOps.TRUNC_I32_I16,
                 CoreOps.EXT_I8_I32_S, CoreOps.EXT_I8_I32_U, CoreOps.EXT_I16_I32_S, CoreOps.EXT_I16_I32_U -> {
                int a = r[u16(c, pc + 1)];
                r[u16(c, pc + 3)] = switch (op) {
                    case CoreOps.NOT_I32 -> ~a;
                    case CoreOps.CTLZ_I32 -> Integer.numberOfLeadingZeros(a);
                    case CoreOps.ABS_I32 -> Math.abs(a);
                    case CoreOps.TRUNC_I32_I8, CoreOps.EXT_I8_I32_U -> a & 0xFF;
                    case CoreOps.TRUNC_I32_I16, CoreOps.EXT_I16_I32_U -> a & 0xFFFF;
                    case CoreOps.EXT_I8_I32_S -> (byte) a;
                    default -> (short) a; // EXT_I16_I32_S
                };
                return pc + 5;
            }
            case CoreOps.FMAI32 -> {
                r[u16(c, pc + 7)] = r[u16(c, pc + 1)] * r[u16(c, pc + 3)] + r[u16(c, pc + 5)];
                return pc + 9;
            }
            default -> {
                int a = r[u16(c, pc + 1)];
                int b = r[u16(c, pc + 3)];
                r[u16(c, pc + 5)] = switch (op) {
                    case CoreOps.DIV_I32_S -> a / b;
                    case CoreOps.DIV_I32_U -> Integer.divideUnsigned(a, b);
                    case CoreOps.REM_I32_S -> a % b;
                    case CoreOps.REM_I32_U -> Integer.remainderUnsigned(a, b);
                    case CoreOps.MIN_I32_S -> b < a ? b : a;
                    case CoreOps.MIN_I32_U -> Integer.compareUnsigned(b, a) < 0 ? b : a;
                    case CoreOps.MAX_I32_S -> a < b ? b : a;
                    default -> Integer.compareUnsigned(a, b) < 0 ? b : a; // MAX_I32_U
                };
                return pc + 7;
            }
        }
    }

    static int longOp(byte[] c, int pc, int[] r) {
        int op = c[pc] & 0xFF;
        switch (op) {
            case CoreOps.NOT_I64, CoreOps.CTLZ_I64, CoreOps.ABS_I64 -> {
                long a = rl(r, u16(c, pc + 1));
                wl(r, u16(c, pc + 3), switch (op) {
                    case CoreOps.NOT_I64 -> ~a;
                    case CoreOps.CTLZ_I64 -> Long.numberOfLeadingZeros(a);
                    default -> Math.abs(a);
                });
                return pc + 5;
            }
            case CoreOps.TRUNC_I64_I32 -> {
                r[u16(c, pc + 3)] = (int) rl(r, u16(c, pc + 1));
                return pc + 5;
            }
            case CoreOps.EXT_I32_I64_S -> {
                wl(r, u16(c, pc + 3), r[u16(c, pc + 1)]);
                return pc + 5;
            }
            case CoreOps.EXT_I32_I64_U -> {
                wl(r, u16(c, pc + 3), r[u16(c, pc + 1)] & 0xFFFF_FFFFL);
                return pc + 5;
            }
            case CoreOps.CMP_NZI64 -> {
                r[u16(c, pc + 3)] = rl(r, u16(c, pc + 1)) != 0 ? 1 : 0;
                return pc + 5;
            }
            case CoreOps.SHL_I64, CoreOps.SHR_I64_S, CoreOps.SHR_I64_U -> {
                long a = rl(r, u16(c, pc + 1));
                int amount = r[u16(c, pc + 3)] & 0x3F;
                wl(r, u16(c, pc + 5), op == CoreOps.SHL_I64 ? a << amount
                        : op == CoreOps.SHR_I64_S ? a >> amount : a >>> amount);
                return pc + 7;
            }
            case CoreOps.CMP_EQI64, CoreOps.CMP_NEI64, CoreOps.CMP_LTI64_S, CoreOps.CMP_LTI64_U -> {
                long a = rl(r, u16(c, pc + 1));
                long b = rl(r, u16(c, pc + 3));
                boolean v = switch (op) {
                    case CoreOps.CMP_EQI64 -> a == b;
                    case CoreOps.CMP_NEI64 -> a != b;
                    case CoreOps.CMP_LTI64_S -> a < b;
                    default -> Long.compareUnsigned(a, b) < 0;
                };
                r[u16(c, pc + 5)] = v ? 1 : 0;
                return pc + 7;
            }
            case CoreOps.FMAI64 -> {
                wl(r, u16(c, pc + 7), rl(r, u16(c, pc + 1)) * rl(r, u16(c, pc + 3)) + rl(r, u16(c, pc + 5)));
                return pc + 9;
            }
            default -> {
                long a = rl(r, u16(c, pc + 1));
                long b = rl(r, u16(c, pc + 3));
                wl(r, u16(c, pc + 5), switch (op) {
                    case CoreOps.ADD_I64 -> a + b;
                    case CoreOps.SUB_I64 -> a - b;
                    case CoreOps.MUL_I64 -> a * b;
                    case CoreOps.DIV_I64_S -> a / b;
                    case CoreOps.DIV_I64_U -> Long.divideUnsigned(a, b);
                    case CoreOps.REM_I64_S -> a % b;
                    case CoreOps.REM_I64_U -> Long.remainderUnsigned(a, b);
                    case CoreOps.AND_I64 -> a & b;
                    case CoreOps.OR_I64 -> a | b;
                    case CoreOps.XOR_I64 -> a ^ b;
                    case CoreOps.MIN_I64_S -> b < a ? b : a;
                    case CoreOps.MIN_I64_U -> Long.compareUnsigned(b, a) < 0 ? b : a;
                    case CoreOps.MAX_I64_S -> a < b ? b : a;
                    default -> Long.compareUnsigned(a, b) < 0 ? b : a; // MAX_I64_U
                });
                return pc + 7;
            }
        }
    }

    static void checkGlobal(BytecodeModule.State st, int offset, int length) {
        if (offset < 0 || (long) offset + length > st.rwdata.length) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "global byte_offset out of range: "
                    + Integer.toUnsignedString(offset) + " (rwdata=" + st.rwdata.length + ")");
        }
    }

    static int checkGlobalRef(BytecodeModule.State st, int ordinal) {
        if (ordinal < 0 || ordinal >= st.globalRefs.length) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "global ref ordinal out of range: "
                    + Integer.toUnsignedString(ordinal) + " (table=" + st.globalRefs.length + ")");
        }
        return ordinal;
    }

    static int globalOp(BytecodeModule m, BytecodeModule.State st, byte[] c, int pc, int[] r,
                                RefObject[] refs) {
        switch (c[pc] & 0xFF) {
            case CoreOps.GLOBAL_LOAD_INDIRECT_I32 -> {
                int offset = r[u16(c, pc + 1)];
                checkGlobal(st, offset, 4);
                r[u16(c, pc + 3)] = (int) I32.get(st.rwdata, offset);
                return pc + 5;
            }
            case CoreOps.GLOBAL_STORE_INDIRECT_I32 -> {
                int offset = r[u16(c, pc + 1)];
                checkGlobal(st, offset, 4);
                I32.set(st.rwdata, offset, r[u16(c, pc + 3)]);
                return pc + 5;
            }
            case CoreOps.GLOBAL_LOAD_INDIRECT_I64 -> {
                int offset = r[u16(c, pc + 1)];
                checkGlobal(st, offset, 8);
                wl(r, u16(c, pc + 3), (long) I64.get(st.rwdata, offset));
                return pc + 5;
            }
            case CoreOps.GLOBAL_STORE_INDIRECT_I64 -> {
                int offset = r[u16(c, pc + 1)];
                checkGlobal(st, offset, 8);
                I64.set(st.rwdata, offset, rl(r, u16(c, pc + 3)));
                return pc + 5;
            }
            case CoreOps.GLOBAL_LOAD_REF -> {
                int value = u16(c, pc + 9);
                retainOrMoveChecked(m, (value & MOVE_BIT) != 0, st.globalRefs, i32(c, pc + 1), i32(c, pc + 5),
                        refs, value & REF_MASK);
                return pc + 11;
            }
            case CoreOps.GLOBAL_STORE_REF -> {
                int value = u16(c, pc + 9);
                retainOrMoveChecked(m, (value & MOVE_BIT) != 0, refs, value & REF_MASK, i32(c, pc + 5),
                        st.globalRefs, i32(c, pc + 1));
                return pc + 11;
            }
            case CoreOps.GLOBAL_LOAD_INDIRECT_REF -> {
                int global = checkGlobalRef(st, r[u16(c, pc + 1)]);
                int value = u16(c, pc + 7);
                retainOrMoveChecked(m, (value & MOVE_BIT) != 0, st.globalRefs, global, i32(c, pc + 3),
                        refs, value & REF_MASK);
                return pc + 9;
            }
            default -> { // GLOBAL_STORE_INDIRECT_REF
                int global = checkGlobalRef(st, r[u16(c, pc + 1)]);
                int value = u16(c, pc + 7);
                retainOrMoveChecked(m, (value & MOVE_BIT) != 0, refs, value & REF_MASK, i32(c, pc + 3),
                        st.globalRefs, global);
                return pc + 9;
            }
        }
    }

    static VmList list(RefObject[] refs, int reg) {
        RefObject v = refs[reg & REF_MASK];
        if (v instanceof VmList l) {
            return l;
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, v == null ? "list is null"
                : "ref register holds " + v.refType().name() + " where a vm.list is required");
    }

    static VmBuffer buffer(RefObject[] refs, int reg, String what) {
        RefObject v = refs[reg & REF_MASK];
        if (v instanceof VmBuffer b) {
            return b;
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, v == null ? what + " is null"
                : "ref register holds " + v.refType().name() + " where a vm.buffer is required");
    }

    static int listOp(BytecodeModule m, HostMemoryLimit memory, byte[] c, int pc, int[] r, RefObject[] refs) {
        switch (c[pc] & 0xFF) {
            case CoreOps.LIST_ALLOC -> {
                int type = i32(c, pc + 1);
                int capacity = r[u16(c, pc + 5)];
                if (capacity < 0) {
                    throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "list capacity "
                            + Integer.toUnsignedString(capacity) + " too large");
                }
                VmList list;
                if (type < m.valueTypes.length && m.valueTypes[type] != null) {
                    list = VmList.ofValues(m.valueTypes[type], capacity, memory);
                } else if (type < m.types.length && m.types[type] != null) {
                    list = VmList.ofRefs(m.types[type], capacity, memory);
                } else {
                    list = VmList.ofVariants(capacity, memory);
                }
                assign(refs, u16(c, pc + 7) & REF_MASK, list);
                return pc + 9;
            }
            case CoreOps.LIST_RESERVE -> {
                int capacity = r[u16(c, pc + 3)];
                VmList l = list(refs, u16(c, pc + 1));
                if (capacity < 0) {
                    throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "list capacity "
                            + Integer.toUnsignedString(capacity) + " too large");
                }
                l.reserve(capacity);
                return pc + 5;
            }
            case CoreOps.LIST_SIZE -> {
                r[u16(c, pc + 3)] = list(refs, u16(c, pc + 1)).size();
                return pc + 5;
            }
            case CoreOps.LIST_RESIZE -> {
                int size = r[u16(c, pc + 3)];
                VmList l = list(refs, u16(c, pc + 1));
                if (size < 0) {
                    throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "list size "
                            + Integer.toUnsignedString(size) + " too large");
                }
                l.resize(size);
                return pc + 5;
            }
            case CoreOps.LIST_GET_I32 -> {
                VmList l = list(refs, u16(c, pc + 1));
                r[u16(c, pc + 5)] = (int) l.getValueBits(index(r[u16(c, pc + 3)], l), ValueType.I32);
                return pc + 7;
            }
            case CoreOps.LIST_SET_I32 -> {
                VmList l = list(refs, u16(c, pc + 1));
                l.setValueBits(index(r[u16(c, pc + 3)], l), ValueType.I32, r[u16(c, pc + 5)]);
                return pc + 7;
            }
            case CoreOps.LIST_GET_I64 -> {
                VmList l = list(refs, u16(c, pc + 1));
                wl(r, u16(c, pc + 5), l.getValueBits(index(r[u16(c, pc + 3)], l), ValueType.I64));
                return pc + 7;
            }
            case CoreOps.LIST_SET_I64 -> {
                VmList l = list(refs, u16(c, pc + 1));
                l.setValueBits(index(r[u16(c, pc + 3)], l), ValueType.I64, rl(r, u16(c, pc + 5)));
                return pc + 7;
            }
            case CoreOps.LIST_GET_REF -> {
                VmList l = list(refs, u16(c, pc + 1));
                int i = index(r[u16(c, pc + 3)], l);
                int type = i32(c, pc + 5);
                int dst = u16(c, pc + 9);
                RefObject v = (dst & MOVE_BIT) != 0 ? l.getRefMove(i) : l.getRefRetain(i);
                if (v != null && (type >= m.types.length || m.types[type] == null || !m.types[type].accepts(v))) {
                    // Type mismatch: IREE puts null in the register.
                    v.release();
                    v = null;
                }
                assign(refs, dst & REF_MASK, v);
                return pc + 11;
            }
            default -> { // LIST_SET_REF
                VmList l = list(refs, u16(c, pc + 1));
                int i = index(r[u16(c, pc + 3)], l);
                int src = u16(c, pc + 5);
                RefObject v = refs[src & REF_MASK];
                if ((src & MOVE_BIT) != 0) {
                    l.setRefMove(i, v);
                    refs[src & REF_MASK] = null;
                } else {
                    l.setRefRetain(i, v);
                }
                return pc + 7;
            }
        }
    }

    /** List indices are unsigned in IREE: a negative register value is out of range. */
    static int index(int i, VmList l) {
        if (i < 0) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "index " + Integer.toUnsignedString(i)
                    + " out of bounds (" + l.size() + ")");
        }
        return i;
    }

    static int selectOp(BytecodeModule m, byte[] c, int pc, int base, int[] r, RefObject[] refs) {
        switch (c[pc] & 0xFF) {
            case CoreOps.SELECT_REF -> {
                int cond = r[u16(c, pc + 1)];
                int type = i32(c, pc + 3);
                int t = u16(c, pc + 7);
                int f = u16(c, pc + 9);
                int res = u16(c, pc + 11) & REF_MASK;
                int chosen = cond != 0 ? t : f;
                int other = cond != 0 ? f : t;
                retainOrMoveChecked(m, (chosen & MOVE_BIT) != 0, refs, chosen & REF_MASK, type, refs, res);
                if ((other & MOVE_BIT) != 0 && (other & REF_MASK) != res) {
                    assign(refs, other & REF_MASK, null);
                }
                return pc + 13;
            }
            case CoreOps.SWITCH_I32 -> {
                int index = r[u16(c, pc + 1)];
                int value = r[u16(c, pc + 3)];
                int p = align(pc + 5, base);
                int n = u16(c, p);
                if (index >= 0 && index < n) {
                    value = r[u16(c, p + 2 + 2 * index)];
                }
                r[u16(c, p + 2 + 2 * n)] = value;
                return p + 4 + 2 * n;
            }
            case CoreOps.SWITCH_I64 -> {
                int index = r[u16(c, pc + 1)];
                long value = rl(r, u16(c, pc + 3));
                int p = align(pc + 5, base);
                int n = u16(c, p);
                if (index >= 0 && index < n) {
                    value = rl(r, u16(c, p + 2 + 2 * index));
                }
                wl(r, u16(c, p + 2 + 2 * n), value);
                return p + 4 + 2 * n;
            }
            case CoreOps.SWITCH_REF -> {
                int index = r[u16(c, pc + 1)];
                int type = i32(c, pc + 3);
                int src = u16(c, pc + 7);
                int p = align(pc + 9, base);
                int n = u16(c, p);
                if (index >= 0 && index < n) {
                    src = u16(c, p + 2 + 2 * index);
                }
                int res = u16(c, p + 2 + 2 * n) & REF_MASK;
                retainOrMoveChecked(m, (src & MOVE_BIT) != 0, refs, src & REF_MASK, type, refs, res);
                return p + 4 + 2 * n;
            }
            default -> { // CAST_ANY_REF
                int src = u16(c, pc + 1);
                int type = i32(c, pc + 3);
                retainOrMoveChecked(m, (src & MOVE_BIT) != 0, refs, src & REF_MASK, type, refs,
                        u16(c, pc + 7) & REF_MASK);
                return pc + 9;
            }
        }
    }

    static int bufferOp(Context context, byte[] c, int pc, int[] r, RefObject[] refs) {
        int op = c[pc] & 0xFF;
        switch (op) {
            case CoreOps.BUFFER_LOAD_I8_U, CoreOps.BUFFER_LOAD_I8_S, CoreOps.BUFFER_LOAD_I16_U,
                 CoreOps.BUFFER_LOAD_I16_S, CoreOps.BUFFER_LOAD_I32 -> {
                VmBuffer b = buffer(refs, u16(c, pc + 1), "source_buffer");
                long index = rl(r, u16(c, pc + 3));
                r[u16(c, pc + 5)] = switch (op) {
                    case CoreOps.BUFFER_LOAD_I8_U -> b.loadI8(index) & 0xFF;
                    case CoreOps.BUFFER_LOAD_I8_S -> b.loadI8(index);
                    case CoreOps.BUFFER_LOAD_I16_U -> b.loadI16(index) & 0xFFFF;
                    case CoreOps.BUFFER_LOAD_I16_S -> b.loadI16(index);
                    default -> b.loadI32(index);
                };
                return pc + 7;
            }
            case CoreOps.BUFFER_LOAD_I64 -> {
                VmBuffer b = buffer(refs, u16(c, pc + 1), "source_buffer");
                wl(r, u16(c, pc + 5), b.loadI64(rl(r, u16(c, pc + 3))));
                return pc + 7;
            }
            case CoreOps.BUFFER_STORE_I8, CoreOps.BUFFER_STORE_I16, CoreOps.BUFFER_STORE_I32 -> {
                VmBuffer b = buffer(refs, u16(c, pc + 1), "target_buffer");
                long index = rl(r, u16(c, pc + 3));
                int v = r[u16(c, pc + 5)];
                if (op == CoreOps.BUFFER_STORE_I8) {
                    b.storeI8(index, (byte) v);
                } else if (op == CoreOps.BUFFER_STORE_I16) {
                    b.storeI16(index, (short) v);
                } else {
                    b.storeI32(index, v);
                }
                return pc + 7;
            }
            case CoreOps.BUFFER_STORE_I64 -> {
                VmBuffer b = buffer(refs, u16(c, pc + 1), "target_buffer");
                b.storeI64(rl(r, u16(c, pc + 3)), rl(r, u16(c, pc + 5)));
                return pc + 7;
            }
            case CoreOps.BUFFER_ALLOC -> {
                long length = rl(r, u16(c, pc + 1));
                int alignment = r[u16(c, pc + 3)];
                VmBuffer b = VmBuffer.allocate(VmBuffer.ACCESS_MUTABLE | VmBuffer.ACCESS_ORIGIN_GUEST, length,
                        alignment == 0 ? 16 : alignment, context.hostMemoryLimit(), context.bufferPool());
                assign(refs, u16(c, pc + 5) & REF_MASK, b);
                return pc + 7;
            }
            case CoreOps.BUFFER_CLONE -> {
                VmBuffer b = buffer(refs, u16(c, pc + 1), "source");
                long offset = rl(r, u16(c, pc + 3));
                long length = rl(r, u16(c, pc + 5));
                int alignment = r[u16(c, pc + 7)];
                VmBuffer clone = b.cloneRange(VmBuffer.ACCESS_MUTABLE | VmBuffer.ACCESS_ORIGIN_GUEST, offset, length,
                        alignment == 0 ? 16 : alignment, context.hostMemoryLimit(), context.bufferPool());
                assign(refs, u16(c, pc + 9) & REF_MASK, clone);
                return pc + 11;
            }
            case CoreOps.BUFFER_LENGTH -> {
                wl(r, u16(c, pc + 3), buffer(refs, u16(c, pc + 1), "buffer").length());
                return pc + 5;
            }
            case CoreOps.BUFFER_COPY -> {
                VmBuffer s = buffer(refs, u16(c, pc + 1), "source_buffer");
                VmBuffer t = buffer(refs, u16(c, pc + 5), "target_buffer");
                VmBuffer.copyBytes(s, rl(r, u16(c, pc + 3)), t, rl(r, u16(c, pc + 7)), rl(r, u16(c, pc + 9)));
                return pc + 11;
            }
            case CoreOps.BUFFER_COMPARE -> {
                VmBuffer lhs = buffer(refs, u16(c, pc + 1), "lhs_buffer");
                VmBuffer rhs = buffer(refs, u16(c, pc + 5), "rhs_buffer");
                r[u16(c, pc + 11)] = VmBuffer.compareBytes(lhs, rl(r, u16(c, pc + 3)), rhs, rl(r, u16(c, pc + 7)),
                        rl(r, u16(c, pc + 9))) ? 1 : 0;
                return pc + 13;
            }
            case CoreOps.BUFFER_FILL_I8, CoreOps.BUFFER_FILL_I16, CoreOps.BUFFER_FILL_I32, CoreOps.BUFFER_FILL_I64 -> {
                VmBuffer b = buffer(refs, u16(c, pc + 1), "buffer");
                long offset = rl(r, u16(c, pc + 3));
                long length = rl(r, u16(c, pc + 5));
                int v = u16(c, pc + 7);
                switch (op) {
                    case CoreOps.BUFFER_FILL_I8 -> b.fillElements(offset, length, 1, r[v] & 0xFF);
                    case CoreOps.BUFFER_FILL_I16 -> b.fillElements(offset, length, 2, r[v] & 0xFFFF);
                    case CoreOps.BUFFER_FILL_I32 -> b.fillElements(offset, length, 4, r[v] & 0xFFFF_FFFFL);
                    default -> b.fillElements(offset, length, 8, rl(r, v));
                }
                return pc + 9;
            }
            default -> { // BUFFER_HASH
                VmBuffer b = buffer(refs, u16(c, pc + 1), "source_buffer");
                wl(r, u16(c, pc + 7), b.hash(rl(r, u16(c, pc + 3)), rl(r, u16(c, pc + 5))));
                return pc + 9;
            }
        }
    }
}
