package dev.ortho.vm.bytecode;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Call;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.Frame;
import dev.ortho.vm.FrameType;
import dev.ortho.vm.Function;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.RefType;
import dev.ortho.vm.Stack;
import dev.ortho.vm.ValueType;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import dev.ortho.vm.internal.isa.CoreOps;
import dev.ortho.vm.spi.InstructionExtension;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatch loop of {@link BytecodeModule} (IREE's {@code iree_vm_bytecode_dispatch}).
 *
 * <p>{@link #run} is one method with a dense {@code switch} over the core opcodes: arithmetic,
 * compares, moves and branches are decoded and executed inline on the frame's {@code int[]}
 * register bank (64-bit values in aligned pairs) and {@code RefObject[]} ref bank; rarer ops
 * (lists, buffers, ref globals, calls) are out-of-line helpers so the loop stays small enough
 * for the JIT to compile as a whole. Nothing is allocated per instruction. Operands are read
 * straight from the bytecode copy, which the verifier proved in bounds.
 *
 * <p>Each frame carries two hidden i32 slots after the function's registers: the absolute pc
 * of the result register list of an internal call in flight, and a flag marking an import call
 * that deferred (so {@link #resume} completes it before continuing).
 */
final class Interpreter {
    static final int HIDDEN_I32 = 2;
    static final int REF_MASK = 0x3FFF;
    static final int MOVE_BIT = 0x4000;
    static final int TYPE_BIT = 0x8000;
    private static final Logger LOG = LoggerFactory.getLogger(Interpreter.class);
    private static final VarHandle I16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** Helper result: the current frame changed; reload the dispatch state from the stack top. */
    private static final int RELOAD = -1;
    /** Helper result: the call deferred; return DEFERRED. */
    private static final int DEFER = -2;
    /** Helper result: the entry frame returned; return COMPLETED. */
    private static final int DONE = -3;

    private Interpreter() {
    }

    static int u16(byte[] c, int p) {
        return (char) (short) I16.get(c, p);
    }

    static int i32(byte[] c, int p) {
        return (int) I32.get(c, p);
    }

    static long i64(byte[] c, int p) {
        return (long) I64.get(c, p);
    }

    static long rl(int[] r, int x) {
        return ((long) r[x + 1] << 32) | (r[x] & 0xFFFF_FFFFL);
    }

    static void wl(int[] r, int x, long v) {
        r[x] = (int) v;
        r[x + 1] = (int) (v >>> 32);
    }

    /** Aligns absolute pc {@code p} to 2 bytes relative to the function start {@code base}. */
    static int align(int p, int base) {
        return p + ((p - base) & 1);
    }

    /** Position after the register list that starts (unaligned) at {@code p}. */
    static int skipList(byte[] c, int p, int base) {
        p = align(p, base);
        return p + 2 + 2 * u16(c, p);
    }

    static void assign(RefObject[] refs, int dst, RefObject v) {
        RefObject old = refs[dst];
        refs[dst] = v;
        if (old != null) {
            old.release();
        }
    }

    /** IREE's retain_or_move between two ref slots (possibly of different frames). */
    static void retainOrMove(boolean move, RefObject[] src, int s, RefObject[] dst, int d) {
        RefObject v = src[s];
        if (move) {
            if (src == dst && s == d) {
                return;
            }
            src[s] = null;
        } else if (v != null) {
            v.retain();
        }
        assign(dst, d, v);
    }

    static boolean typeMatches(BytecodeModule m, RefObject v, int typeOrdinal) {
        if (v == null) {
            return true;
        }
        RefType t = typeOrdinal < m.types.length ? m.types[typeOrdinal] : null;
        return t != null && t.accepts(v);
    }

    /** retain_or_move_checked: fails (INVALID_ARGUMENT) without changes if the ref has another type. */
    static void retainOrMoveChecked(BytecodeModule m, boolean move, RefObject[] src, int s, int typeOrdinal,
                                    RefObject[] dst, int d) {
        if (!typeMatches(m, src[s], typeOrdinal)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "source ref type mismatch; expected "
                    + m.typeNames[typeOrdinal] + " but got " + src[s].refType().name());
        }
        retainOrMove(move, src, s, dst, d);
    }

    /** Pushes a frame for internal function {@code ordinal}. */
    static Frame enter(BytecodeModule m, Stack stack, int ordinal, Call call) {
        return stack.enter(FrameType.BYTECODE, m.internal[ordinal], m.fnI32[ordinal] + HIDDEN_I32, m.fnRef[ordinal],
                call);
    }

    /** Marshals external call arguments into the registers of a freshly entered frame (refs retained). */
    static void marshalArguments(BytecodeModule m, int ordinal, Frame frame, CallBuffer args) {
        String types = m.fnCconv[ordinal].arguments().types();
        int[] r = frame.i32Registers();
        RefObject[] refs = frame.refRegisters();
        int ri = 0;
        int rr = 0;
        int p = 0;
        int q = 0;
        for (int i = 0; i < types.length(); i++) {
            switch (types.charAt(i)) {
                case 'i', 'f' -> r[ri++] = (int) args.bits(p++);
                case 'I', 'F' -> {
                    ri += ri & 1;
                    wl(r, ri, args.bits(p++));
                    ri += 2;
                }
                case 'r' -> refs[rr++] = RefObject.retain(args.ref(q++));
                default -> throw new StatusException(StatusCode.INVALID_ARGUMENT,
                        "internal functions cannot accept variadic arguments");
            }
        }
    }

    /** Continues a frame after a yield or a deferred import. */
    static CallOutcome resume(BytecodeModule m, BytecodeModule.State st, Stack stack, Frame frame) {
        int fn = frame.function().ordinal();
        int[] r = frame.i32Registers();
        if (r[m.fnI32[fn] + 1] != 0) {
            r[m.fnI32[fn] + 1] = 0;
            int op = m.fnBase[fn] + (int) frame.pc();
            try {
                frame.setPc(finishImport(m, st, frame, op) - m.fnBase[fn]);
            } catch (StatusException e) {
                throw e.annotate("while calling import");
            }
        }
        return run(m, st, stack, frame);
    }

    /**
     * Runs from {@code frame}'s pc until the entry frame of this activation returns (COMPLETED),
     * something yields (DEFERRED) or fails (thrown, frames left for the unwinder with their pc set
     * to the failing instruction).
     */
    static CallOutcome run(BytecodeModule m, BytecodeModule.State st, Stack stack, Frame frame) {
        final byte[] c = m.code;
        final boolean trace = m.trace;
        int fn = frame.function().ordinal();
        int base = m.fnBase[fn];
        int pc = base + (int) frame.pc();
        int[] r = frame.i32Registers();
        RefObject[] refs = frame.refRegisters();
        Machine mach = null;
        int op = pc;
        try {
            while (true) {
                op = pc;
                if (trace) {
                    trace(m, frame, fn, pc - base, c, pc);
                }
                int next;
                // One bounds-checked 8-byte read covers the opcode and the first operands of
                // most instructions (the code array is padded, so it never reads past the end).
                final long w = (long) I64.get(c, pc);
                switch ((int) w & 0xFF) {
                    // Globals.
                    case CoreOps.GLOBAL_LOAD_I32 -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = (int) I32.get(st.rwdata, ((int) (w >>> 8)));
                        pc += 7;
                        continue;
                    }
                    case CoreOps.GLOBAL_STORE_I32 -> {
                        I32.set(st.rwdata, ((int) (w >>> 8)), r[((int) (w >>> 40) & 0xFFFF)]);
                        pc += 7;
                        continue;
                    }
                    case CoreOps.GLOBAL_LOAD_I64 -> {
                        wl(r, ((int) (w >>> 40) & 0xFFFF), (long) I64.get(st.rwdata, ((int) (w >>> 8))));
                        pc += 7;
                        continue;
                    }
                    case CoreOps.GLOBAL_STORE_I64 -> {
                        I64.set(st.rwdata, ((int) (w >>> 8)), rl(r, ((int) (w >>> 40) & 0xFFFF)));
                        pc += 7;
                        continue;
                    }
                    case CoreOps.GLOBAL_LOAD_INDIRECT_I32, CoreOps.GLOBAL_STORE_INDIRECT_I32,
                         CoreOps.GLOBAL_LOAD_INDIRECT_I64, CoreOps.GLOBAL_STORE_INDIRECT_I64,
                         CoreOps.GLOBAL_LOAD_REF, CoreOps.GLOBAL_STORE_REF, CoreOps.GLOBAL_LOAD_INDIRECT_REF,
                         CoreOps.GLOBAL_STORE_INDIRECT_REF -> next = globalOp(m, st, c, pc, r, refs);
                    // Constants.
                    case CoreOps.CONST_I32_ZERO -> {
                        r[((int) (w >>> 8) & 0xFFFF)] = 0;
                        pc += 3;
                        continue;
                    }
                    case CoreOps.CONST_I32 -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = ((int) (w >>> 8));
                        pc += 7;
                        continue;
                    }
                    case CoreOps.CONST_I64_ZERO -> {
                        wl(r, ((int) (w >>> 8) & 0xFFFF), 0L);
                        pc += 3;
                        continue;
                    }
                    case CoreOps.CONST_I64 -> {
                        wl(r, u16(c, pc + 9), i64(c, pc + 1));
                        pc += 11;
                        continue;
                    }
                    case CoreOps.CONST_REF_ZERO -> {
                        assign(refs, ((int) (w >>> 8) & 0xFFFF) & REF_MASK, null);
                        pc += 3;
                        continue;
                    }
                    case CoreOps.CONST_REF_RODATA -> {
                        assign(refs, ((int) (w >>> 40) & 0xFFFF) & REF_MASK, RefObject.retain(m.rodata[((int) (w >>> 8))]));
                        pc += 7;
                        continue;
                    }
                    case CoreOps.DISCARD_REFS -> {
                        int p = align(pc + 1, base);
                        int n = u16(c, p);
                        for (int i = 0; i < n; i++) {
                            assign(refs, u16(c, p + 2 + 2 * i) & REF_MASK, null);
                        }
                        pc = p + 2 + 2 * n;
                        continue;
                    }
                    case CoreOps.ASSIGN_REF -> {
                        int s = ((int) (w >>> 8) & 0xFFFF);
                        retainOrMove((s & MOVE_BIT) != 0, refs, s & REF_MASK, refs, ((int) (w >>> 24) & 0xFFFF) & REF_MASK);
                        pc += 5;
                        continue;
                    }
                    case CoreOps.LIST_ALLOC, CoreOps.LIST_RESERVE, CoreOps.LIST_SIZE, CoreOps.LIST_RESIZE,
                         CoreOps.LIST_GET_I32, CoreOps.LIST_SET_I32, CoreOps.LIST_GET_I64, CoreOps.LIST_SET_I64,
                         CoreOps.LIST_GET_REF, CoreOps.LIST_SET_REF -> next = listOp(m, c, pc, r, refs);
                    // Conditional assignment.
                    case CoreOps.SELECT_I32 -> {
                        r[u16(c, pc + 7)] = r[((int) (w >>> 8) & 0xFFFF)] != 0 ? r[((int) (w >>> 24) & 0xFFFF)] : r[((int) (w >>> 40) & 0xFFFF)];
                        pc += 9;
                        continue;
                    }
                    case CoreOps.SELECT_I64 -> {
                        wl(r, u16(c, pc + 7), r[((int) (w >>> 8) & 0xFFFF)] != 0 ? rl(r, ((int) (w >>> 24) & 0xFFFF)) : rl(r, ((int) (w >>> 40) & 0xFFFF)));
                        pc += 9;
                        continue;
                    }
                    case CoreOps.SELECT_REF, CoreOps.SWITCH_I32, CoreOps.SWITCH_I64, CoreOps.SWITCH_REF,
                         CoreOps.CAST_ANY_REF -> next = selectOp(m, c, pc, base, r, refs);
                    // Integer arithmetic.
                    case CoreOps.ADD_I32 -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = r[((int) (w >>> 8) & 0xFFFF)] + r[((int) (w >>> 24) & 0xFFFF)];
                        pc += 7;
                        continue;
                    }
                    case CoreOps.SUB_I32 -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = r[((int) (w >>> 8) & 0xFFFF)] - r[((int) (w >>> 24) & 0xFFFF)];
                        pc += 7;
                        continue;
                    }
                    case CoreOps.MUL_I32 -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = r[((int) (w >>> 8) & 0xFFFF)] * r[((int) (w >>> 24) & 0xFFFF)];
                        pc += 7;
                        continue;
                    }
                    case CoreOps.AND_I32 -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = r[((int) (w >>> 8) & 0xFFFF)] & r[((int) (w >>> 24) & 0xFFFF)];
                        pc += 7;
                        continue;
                    }
                    case CoreOps.OR_I32 -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = r[((int) (w >>> 8) & 0xFFFF)] | r[((int) (w >>> 24) & 0xFFFF)];
                        pc += 7;
                        continue;
                    }
                    case CoreOps.XOR_I32 -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = r[((int) (w >>> 8) & 0xFFFF)] ^ r[((int) (w >>> 24) & 0xFFFF)];
                        pc += 7;
                        continue;
                    }
                    case CoreOps.SHL_I32 -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = r[((int) (w >>> 8) & 0xFFFF)] << (r[((int) (w >>> 24) & 0xFFFF)] & 0x1F);
                        pc += 7;
                        continue;
                    }
                    case CoreOps.SHR_I32_S -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = r[((int) (w >>> 8) & 0xFFFF)] >> (r[((int) (w >>> 24) & 0xFFFF)] & 0x1F);
                        pc += 7;
                        continue;
                    }
                    case CoreOps.SHR_I32_U -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = r[((int) (w >>> 8) & 0xFFFF)] >>> (r[((int) (w >>> 24) & 0xFFFF)] & 0x1F);
                        pc += 7;
                        continue;
                    }
                    case CoreOps.CMP_EQI32 -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = r[((int) (w >>> 8) & 0xFFFF)] == r[((int) (w >>> 24) & 0xFFFF)] ? 1 : 0;
                        pc += 7;
                        continue;
                    }
                    case CoreOps.CMP_NEI32 -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = r[((int) (w >>> 8) & 0xFFFF)] != r[((int) (w >>> 24) & 0xFFFF)] ? 1 : 0;
                        pc += 7;
                        continue;
                    }
                    case CoreOps.CMP_LTI32_S -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = r[((int) (w >>> 8) & 0xFFFF)] < r[((int) (w >>> 24) & 0xFFFF)] ? 1 : 0;
                        pc += 7;
                        continue;
                    }
                    case CoreOps.CMP_LTI32_U -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = Integer.compareUnsigned(r[((int) (w >>> 8) & 0xFFFF)], r[((int) (w >>> 24) & 0xFFFF)]) < 0 ? 1 : 0;
                        pc += 7;
                        continue;
                    }
                    case CoreOps.CMP_NZI32 -> {
                        r[((int) (w >>> 24) & 0xFFFF)] = r[((int) (w >>> 8) & 0xFFFF)] != 0 ? 1 : 0;
                        pc += 5;
                        continue;
                    }
                    case CoreOps.DIV_I32_S, CoreOps.DIV_I32_U, CoreOps.REM_I32_S, CoreOps.REM_I32_U, CoreOps.FMAI32,
                         CoreOps.NOT_I32, CoreOps.CTLZ_I32, CoreOps.ABS_I32, CoreOps.MIN_I32_S, CoreOps.MIN_I32_U,
                         CoreOps.MAX_I32_S, CoreOps.MAX_I32_U, CoreOps.TRUNC_I32_I8, CoreOps.TRUNC_I32_I16,
                         CoreOps.EXT_I8_I32_S, CoreOps.EXT_I8_I32_U, CoreOps.EXT_I16_I32_S,
                         CoreOps.EXT_I16_I32_U -> next = intOp(c, pc, r);
                    case CoreOps.ADD_I64, CoreOps.SUB_I64, CoreOps.MUL_I64, CoreOps.DIV_I64_S, CoreOps.DIV_I64_U,
                         CoreOps.REM_I64_S, CoreOps.REM_I64_U, CoreOps.FMAI64, CoreOps.NOT_I64, CoreOps.AND_I64,
                         CoreOps.OR_I64, CoreOps.XOR_I64, CoreOps.SHL_I64, CoreOps.SHR_I64_S, CoreOps.SHR_I64_U,
                         CoreOps.TRUNC_I64_I32, CoreOps.EXT_I32_I64_S, CoreOps.EXT_I32_I64_U, CoreOps.CMP_EQI64,
                         CoreOps.CMP_NEI64, CoreOps.CMP_LTI64_S, CoreOps.CMP_LTI64_U, CoreOps.CMP_NZI64,
                         CoreOps.CTLZ_I64, CoreOps.ABS_I64, CoreOps.MIN_I64_S, CoreOps.MIN_I64_U, CoreOps.MAX_I64_S,
                         CoreOps.MAX_I64_U -> next = longOp(c, pc, r);
                    case CoreOps.CMP_EQREF -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = refs[((int) (w >>> 8) & 0xFFFF) & REF_MASK] == refs[((int) (w >>> 24) & 0xFFFF) & REF_MASK] ? 1 : 0;
                        pc += 7;
                        continue;
                    }
                    case CoreOps.CMP_NEREF -> {
                        r[((int) (w >>> 40) & 0xFFFF)] = refs[((int) (w >>> 8) & 0xFFFF) & REF_MASK] != refs[((int) (w >>> 24) & 0xFFFF) & REF_MASK] ? 1 : 0;
                        pc += 7;
                        continue;
                    }
                    case CoreOps.CMP_NZREF -> {
                        r[((int) (w >>> 24) & 0xFFFF)] = refs[((int) (w >>> 8) & 0xFFFF) & REF_MASK] != null ? 1 : 0;
                        pc += 5;
                        continue;
                    }
                    // Control flow.
                    case CoreOps.BLOCK -> {
                        pc += 1;
                        continue;
                    }
                    case CoreOps.BRANCH -> {
                        int target = ((int) (w >>> 8));
                        int p = align(pc + 5, base);
                        if (u16(c, p) != 0) {
                            remap(c, p, r, refs);
                        }
                        pc = base + target + 1;
                        continue;
                    }
                    case CoreOps.COND_BRANCH -> {
                        int p = pc + 3;
                        if (r[((int) (w >>> 8) & 0xFFFF)] == 0) {
                            int l = align(p + 4, base);
                            p = l + 2 + 4 * u16(c, l);
                        }
                        int target = i32(c, p);
                        int l = align(p + 4, base);
                        if (u16(c, l) != 0) {
                            remap(c, l, r, refs);
                        }
                        pc = base + target + 1;
                        continue;
                    }
                    case CoreOps.BRANCH_TABLE -> {
                        pc = branchTable(c, pc, base, r, refs);
                        continue;
                    }
                    case CoreOps.CALL, CoreOps.CALL_VARIADIC, CoreOps.CALL_YIELDABLE,
                         CoreOps.CALL_VARIADIC_YIELDABLE -> next = call(m, st, stack, frame, fn, c, pc);
                    case CoreOps.RETURN -> next = ret(m, stack, frame, fn, c, pc);
                    case CoreOps.FAIL -> {
                        int code = r[((int) (w >>> 8) & 0xFFFF)];
                        int len = ((int) (w >>> 24) & 0xFFFF);
                        if (code != 0) {
                            throw new StatusException(StatusCode.fromValue(code),
                                    new String(c, pc + 5, len, StandardCharsets.UTF_8));
                        }
                        pc += 5 + len;
                        if (pc >= base + m.fnLength[fn]) {
                            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                                    "vm.fail with an OK status ran past the end of the function");
                        }
                        continue;
                    }
                    case CoreOps.IMPORT_RESOLVED -> {
                        int ordinal = ((int) (w >>> 8)) & 0x7FFF_FFFF;
                        r[((int) (w >>> 40) & 0xFFFF)] = st.imports[ordinal] != null ? 1 : 0;
                        pc += 7;
                        continue;
                    }
                    case CoreOps.YIELD -> {
                        int target = ((int) (w >>> 8));
                        int p = align(pc + 5, base);
                        if (u16(c, p) != 0) {
                            remap(c, p, r, refs);
                        }
                        frame.setPc(target + 1);
                        return CallOutcome.DEFERRED;
                    }
                    case CoreOps.TRACE, CoreOps.PRINT -> {
                        int p = align(pc + 3 + ((int) (w >>> 8) & 0xFFFF), base);
                        int n = u16(c, p);
                        for (int i = 0; i < n; i++) {
                            int reg = u16(c, p + 2 + 2 * i);
                            if ((reg & (TYPE_BIT | MOVE_BIT)) == (TYPE_BIT | MOVE_BIT)) {
                                assign(refs, reg & REF_MASK, null);
                            }
                        }
                        pc = p + 2 + 2 * n;
                        continue;
                    }
                    case CoreOps.BREAK -> {
                        int target = ((int) (w >>> 8));
                        int p = align(pc + 5, base);
                        if (u16(c, p) != 0) {
                            remap(c, p, r, refs);
                        }
                        pc = base + target;
                        continue;
                    }
                    case CoreOps.COND_BREAK -> {
                        int target = i32(c, pc + 3);
                        int p = align(pc + 7, base);
                        if (u16(c, p) != 0) {
                            remap(c, p, r, refs);
                        }
                        pc = base + target + 1;
                        continue;
                    }
                    case CoreOps.BUFFER_LOAD_I8_U, CoreOps.BUFFER_LOAD_I8_S, CoreOps.BUFFER_LOAD_I16_U,
                         CoreOps.BUFFER_LOAD_I16_S, CoreOps.BUFFER_LOAD_I32, CoreOps.BUFFER_LOAD_I64,
                         CoreOps.BUFFER_STORE_I8, CoreOps.BUFFER_STORE_I16, CoreOps.BUFFER_STORE_I32,
                         CoreOps.BUFFER_STORE_I64, CoreOps.BUFFER_ALLOC, CoreOps.BUFFER_CLONE, CoreOps.BUFFER_LENGTH,
                         CoreOps.BUFFER_COPY, CoreOps.BUFFER_COMPARE, CoreOps.BUFFER_FILL_I8, CoreOps.BUFFER_FILL_I16,
                         CoreOps.BUFFER_FILL_I32, CoreOps.BUFFER_FILL_I64,
                         CoreOps.BUFFER_HASH -> next = bufferOp(c, pc, r, refs);
                    default -> {
                        InstructionExtension ext = m.extensions[(c[pc] & 0xFF) - 0xE0];
                        if (mach == null) {
                            mach = Machine.of(frame);
                        }
                        mach.bind(m, st, c, pc + 2, base, r, refs);
                        ext.execute(c[pc + 1] & 0xFF, mach);
                        pc = mach.pc;
                        continue;
                    }
                }
                if (next >= 0) {
                    pc = next;
                } else if (next == RELOAD) {
                    frame = stack.top();
                    fn = frame.function().ordinal();
                    base = m.fnBase[fn];
                    pc = base + (int) frame.pc();
                    r = frame.i32Registers();
                    refs = frame.refRegisters();
                } else if (next == DEFER) {
                    return CallOutcome.DEFERRED;
                } else {
                    return CallOutcome.COMPLETED;
                }
            }
        } catch (StatusException e) {
            frame.setPc(op - base);
            throw e;
        } catch (ArithmeticException e) {
            frame.setPc(op - base);
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "integer division by zero", e);
        } catch (RuntimeException e) {
            // Defense in depth: verified bytecode cannot get here; never let a fault escape raw.
            frame.setPc(op - base);
            throw new StatusException(StatusCode.INTERNAL, "interpreter fault at " + m.name + "."
                    + frame.function().name() + "+" + String.format("%08X", op - base) + ": " + e, e);
        }
    }

    private static void trace(BytecodeModule m, Frame frame, int fn, int rel, byte[] c, int pc) {
        if (LOG.isInfoEnabled()) {
            int opcode = c[pc] & 0xFF;
            String mnemonic = Disassembly.mnemonic(m, opcode, pc + 1 < c.length ? c[pc + 1] & 0xFF : 0);
            LOG.info(String.format("[%2d] %s.%s+%08X %s", frame.depth(), m.name, m.internal[fn].name(), rel, mnemonic));
        }
    }

    private static void remap(byte[] c, int p, int[] r, RefObject[] refs) {
        int n = u16(c, p);
        for (int i = 0; i < n; i++) {
            int s = u16(c, p + 2 + 4 * i);
            int d = u16(c, p + 4 + 4 * i);
            if ((s & TYPE_BIT) != 0) {
                retainOrMove((s & MOVE_BIT) != 0, refs, s & REF_MASK, refs, d & REF_MASK);
            } else {
                r[d] = r[s];
            }
        }
    }

    private static int branchTable(byte[] c, int pc, int base, int[] r, RefObject[] refs) {
        int index = r[u16(c, pc + 1)];
        int target = i32(c, pc + 3);
        int list = align(pc + 7, base);
        int p = list + 2 + 4 * u16(c, list);
        int size = u16(c, p);
        p += 2;
        if (index >= 0 && index < size) {
            for (int i = 0; i < index; i++) {
                p = align(p + 4, base);
                p += 2 + 4 * u16(c, p);
            }
            target = i32(c, p);
            list = align(p + 4, base);
        }
        if (u16(c, list) != 0) {
            remap(c, list, r, refs);
        }
        return base + target + 1;
    }

    private static int intOp(byte[] c, int pc, int[] r) {
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

    private static int longOp(byte[] c, int pc, int[] r) {
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

    private static void checkGlobal(BytecodeModule.State st, int offset, int length) {
        if (offset < 0 || (long) offset + length > st.rwdata.length) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "global byte_offset out of range: "
                    + Integer.toUnsignedString(offset) + " (rwdata=" + st.rwdata.length + ")");
        }
    }

    private static int checkGlobalRef(BytecodeModule.State st, int ordinal) {
        if (ordinal < 0 || ordinal >= st.globalRefs.length) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "global ref ordinal out of range: "
                    + Integer.toUnsignedString(ordinal) + " (table=" + st.globalRefs.length + ")");
        }
        return ordinal;
    }

    private static int globalOp(BytecodeModule m, BytecodeModule.State st, byte[] c, int pc, int[] r,
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

    private static VmList list(RefObject[] refs, int reg) {
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

    private static int listOp(BytecodeModule m, byte[] c, int pc, int[] r, RefObject[] refs) {
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
                    list = VmList.ofValues(m.valueTypes[type], capacity);
                } else if (type < m.types.length && m.types[type] != null) {
                    list = VmList.ofRefs(m.types[type], capacity);
                } else {
                    list = VmList.ofVariants(capacity);
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
    private static int index(int i, VmList l) {
        if (i < 0) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "index " + Integer.toUnsignedString(i)
                    + " out of bounds (" + l.size() + ")");
        }
        return i;
    }

    private static int selectOp(BytecodeModule m, byte[] c, int pc, int base, int[] r, RefObject[] refs) {
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

    private static int bufferOp(byte[] c, int pc, int[] r, RefObject[] refs) {
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
                        alignment == 0 ? 16 : alignment);
                assign(refs, u16(c, pc + 5) & REF_MASK, b);
                return pc + 7;
            }
            case CoreOps.BUFFER_CLONE -> {
                VmBuffer b = buffer(refs, u16(c, pc + 1), "source");
                long offset = rl(r, u16(c, pc + 3));
                long length = rl(r, u16(c, pc + 5));
                int alignment = r[u16(c, pc + 7)];
                VmBuffer clone = b.cloneRange(VmBuffer.ACCESS_MUTABLE | VmBuffer.ACCESS_ORIGIN_GUEST, offset, length,
                        alignment == 0 ? 16 : alignment);
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

    // ---------------------------------------------------------------------------------------
    // Calls
    // ---------------------------------------------------------------------------------------

    /** Executes a call op at {@code op}; returns the next pc, RELOAD (entered a callee) or DEFER. */
    private static int call(BytecodeModule m, BytecodeModule.State st, Stack stack, Frame frame, int fn, byte[] c,
                            int op) {
        int base = m.fnBase[fn];
        int opcode = c[op] & 0xFF;
        int ordinal = i32(c, op + 1);
        int p = op + 5;
        int segments = -1;
        if (opcode == CoreOps.CALL_VARIADIC || opcode == CoreOps.CALL_VARIADIC_YIELDABLE) {
            segments = align(p, base);
            p = skipList(c, p, base);
        }
        int args = align(p, base);
        p = skipList(c, p, base);
        int resume = -1;
        if (opcode == CoreOps.CALL_YIELDABLE || opcode == CoreOps.CALL_VARIADIC_YIELDABLE) {
            resume = base + i32(c, p) + 1;
            p += 4;
        }
        int results = align(p, base);
        int after = skipList(c, p, base);
        int[] r = frame.i32Registers();
        RefObject[] refs = frame.refRegisters();
        if (ordinal >= 0) {
            if (segments >= 0) {
                throw new StatusException(StatusCode.FAILED_PRECONDITION,
                        "variadic calls only supported for imports");
            }
            frame.setPc((resume >= 0 ? resume : after) - base);
            r[m.fnI32[fn]] = results;
            Frame callee = enter(m, stack, ordinal, null);
            int[] cr = callee.i32Registers();
            RefObject[] crefs = callee.refRegisters();
            String types = m.fnCconv[ordinal].arguments().types();
            int n = u16(c, args);
            int ri = 0;
            int rr = 0;
            for (int i = 0; i < n && i < types.length(); i++) {
                int reg = u16(c, args + 2 + 2 * i);
                switch (types.charAt(i)) {
                    case 'I', 'F' -> {
                        ri += ri & 1;
                        wl(cr, ri, rl(r, reg));
                        ri += 2;
                    }
                    case 'r' -> retainOrMove((reg & MOVE_BIT) != 0, refs, reg & REF_MASK, crefs, rr++);
                    default -> cr[ri++] = r[reg];
                }
            }
            return RELOAD;
        }
        Function f = st.imports[ordinal & 0x7FFF_FFFF];
        if (f == null) {
            Function decl = m.imports().get(ordinal & 0x7FFF_FFFF);
            throw new StatusException(StatusCode.NOT_FOUND, "optional import `" + decl.name() + "` (ordinal "
                    + (ordinal & 0x7FFF_FFFF) + ") not resolved");
        }
        Call out = frame.outgoing().prepare(f);
        marshalImportArguments(f, c, segments, args, r, refs, out.arguments());
        CallOutcome outcome;
        try {
            outcome = f.module().beginCall(stack, out);
        } catch (StatusException e) {
            out.arguments().releaseRefs();
            throw e.annotate("while calling import");
        }
        if (outcome == CallOutcome.DEFERRED) {
            r[m.fnI32[fn] + 1] = 1;
            frame.setPc(op - base);
            return DEFER;
        }
        return finishImport(m, st, frame, op);
    }

    private static void marshalImportArguments(Function f, byte[] c, int segments, int args, int[] r,
                                               RefObject[] refs, CallBuffer out) {
        String types = f.cconv().arguments().types();
        if (segments >= 0) {
            int prims = 0;
            int refCount = 0;
            int seg = 0;
            for (int i = 0; i < types.length(); i++, seg++) {
                char t = types.charAt(i);
                if (t == 'C') {
                    int count = seg < u16(c, segments) ? u16(c, segments + 2 + 2 * seg) : 0;
                    prims++;
                    int j = i + 1;
                    for (; j < types.length() && types.charAt(j) != 'D'; j++) {
                        if (types.charAt(j) == 'r') {
                            refCount += count;
                        } else {
                            prims += count;
                        }
                    }
                    i = j;
                } else if (t == 'r') {
                    refCount++;
                } else {
                    prims++;
                }
            }
            out.reset(prims, refCount);
        }
        int n = u16(c, args);
        int reg = 0;
        int p = 0;
        int q = 0;
        int seg = 0;
        for (int i = 0; i < types.length(); i++, seg++) {
            char t = types.charAt(i);
            if (t == 'C') {
                int count = u16(c, segments + 2 + 2 * seg);
                out.setI32(p++, count);
                int start = i + 1;
                int end = start;
                while (end < types.length() && types.charAt(end) != 'D') {
                    end++;
                }
                for (int k = 0; k < count; k++) {
                    for (int j = start; j < end; j++) {
                        int x = reg < n ? u16(c, args + 2 + 2 * reg) : 0;
                        reg++;
                        char e = types.charAt(j);
                        if (e == 'r') {
                            out.setRef(q++, takeArgRef(refs, x));
                        } else {
                            out.setBits(p++, e == 'I' || e == 'F' ? rl(r, x) : r[x]);
                        }
                    }
                }
                i = end;
            } else {
                int x = reg < n ? u16(c, args + 2 + 2 * reg) : 0;
                reg++;
                if (t == 'r') {
                    out.setRef(q++, takeArgRef(refs, x));
                } else {
                    out.setBits(p++, t == 'I' || t == 'F' ? rl(r, x) : r[x]);
                }
            }
        }
    }

    /** The argument buffer owns one count per ref (retained or moved out of the register). */
    private static RefObject takeArgRef(RefObject[] refs, int reg) {
        RefObject v = refs[reg & REF_MASK];
        if ((reg & MOVE_BIT) != 0) {
            refs[reg & REF_MASK] = null;
        } else if (v != null) {
            v.retain();
        }
        return v;
    }

    /** Completes the import call op at {@code op} (its callee finished): results to registers; returns the next pc. */
    static int finishImport(BytecodeModule m, BytecodeModule.State st, Frame frame, int op) {
        byte[] c = m.code;
        int fn = frame.function().ordinal();
        int base = m.fnBase[fn];
        int opcode = c[op] & 0xFF;
        int p = op + 5;
        if (opcode == CoreOps.CALL_VARIADIC || opcode == CoreOps.CALL_VARIADIC_YIELDABLE) {
            p = skipList(c, p, base);
        }
        p = skipList(c, p, base);
        int next;
        if (opcode == CoreOps.CALL_YIELDABLE || opcode == CoreOps.CALL_VARIADIC_YIELDABLE) {
            next = base + i32(c, p) + 1;
            p += 4;
        } else {
            next = -1;
        }
        int results = align(p, base);
        if (next < 0) {
            next = skipList(c, p, base);
        }
        Call out = frame.outgoing();
        out.arguments().releaseRefs();
        CallBuffer res = out.results();
        String types = out.function().cconv().results().types();
        int[] r = frame.i32Registers();
        RefObject[] refs = frame.refRegisters();
        int n = u16(c, results);
        int pi = 0;
        int qi = 0;
        for (int i = 0; i < types.length(); i++) {
            char t = types.charAt(i);
            if (i >= n) {
                if (t == 'r') {
                    RefObject.release(res.takeRef(qi++));
                }
                continue;
            }
            int x = u16(c, results + 2 + 2 * i);
            switch (t) {
                case 'I', 'F' -> wl(r, x, res.bits(pi++));
                case 'r' -> assign(refs, x & REF_MASK, res.takeRef(qi++));
                default -> r[x] = (int) res.bits(pi++);
            }
        }
        frame.setPc(next - base);
        return next;
    }

    /** Executes RETURN at {@code op}: RELOAD after an internal return, DONE after the entry frame's. */
    private static int ret(BytecodeModule m, Stack stack, Frame frame, int fn, byte[] c, int op) {
        int base = m.fnBase[fn];
        int list = align(op + 1, base);
        int n = u16(c, list);
        String types = m.fnCconv[fn].results().types();
        int[] r = frame.i32Registers();
        RefObject[] refs = frame.refRegisters();
        Call call = frame.call();
        if (call != null) {
            CallBuffer out = call.results();
            int pi = 0;
            int qi = 0;
            for (int i = 0; i < n && i < types.length(); i++) {
                int x = u16(c, list + 2 + 2 * i);
                switch (types.charAt(i)) {
                    case 'I', 'F' -> out.setBits(pi++, rl(r, x));
                    case 'r' -> out.setRef(qi++, takeArgRef(refs, x));
                    default -> out.setBits(pi++, r[x]);
                }
            }
            stack.leave(frame);
            return DONE;
        }
        Frame caller = stack.frame(frame.depth() - 1);
        int cfn = caller.function().ordinal();
        int[] cr = caller.i32Registers();
        RefObject[] crefs = caller.refRegisters();
        int dst = cr[m.fnI32[cfn]];
        int dn = u16(c, dst);
        if (n > dn) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "src/dst reg count mismatch on internal return ("
                    + n + " > " + dn + ")");
        }
        for (int i = 0; i < n; i++) {
            int s = u16(c, list + 2 + 2 * i);
            int d = u16(c, dst + 2 + 2 * i);
            char t = i < types.length() ? types.charAt(i) : ((s & TYPE_BIT) != 0 ? 'r' : 'i');
            switch (t) {
                case 'I', 'F' -> wl(cr, d, rl(r, s));
                case 'r' -> retainOrMove((s & MOVE_BIT) != 0, refs, s & REF_MASK, crefs, d & REF_MASK);
                default -> cr[d] = r[s];
            }
        }
        stack.leave(frame);
        return RELOAD;
    }

    // ---------------------------------------------------------------------------------------
    // Extension machine
    // ---------------------------------------------------------------------------------------

    /** The {@link dev.ortho.vm.spi.ExtensionMachine} handed to extensions; cached on the entry frame. */
    static final class Machine implements dev.ortho.vm.spi.ExtensionMachine {
        BytecodeModule m;
        BytecodeModule.State st;
        byte[] c;
        int pc;
        int base;
        int[] r;
        RefObject[] refs;

        static Machine of(Frame frame) {
            if (frame.scratch() instanceof Machine cached) {
                return cached;
            }
            Machine created = new Machine();
            frame.setScratch(created);
            return created;
        }

        void bind(BytecodeModule module, BytecodeModule.State state, byte[] code, int at, int functionBase,
                  int[] i32, RefObject[] refBank) {
            this.m = module;
            this.st = state;
            this.c = code;
            this.pc = at;
            this.base = functionBase;
            this.r = i32;
            this.refs = refBank;
        }

        @Override
        public int readU8() {
            return c[pc++] & 0xFF;
        }

        @Override
        public int readU16() {
            int v = u16(c, pc);
            pc += 2;
            return v;
        }

        @Override
        public int readI32() {
            int v = Interpreter.i32(c, pc);
            pc += 4;
            return v;
        }

        @Override
        public long readI64() {
            long v = Interpreter.i64(c, pc);
            pc += 8;
            return v;
        }

        @Override
        public int readListSize() {
            pc = align(pc, base);
            return readU16();
        }

        @Override
        public int i32(int reg) {
            return r[reg];
        }

        @Override
        public void setI32(int reg, int value) {
            r[reg] = value;
        }

        @Override
        public long i64(int reg) {
            return rl(r, reg);
        }

        @Override
        public void setI64(int reg, long value) {
            wl(r, reg, value);
        }

        @Override
        public RefObject ref(int ordinal) {
            return refs[ordinal & REF_MASK];
        }

        @Override
        public VmBuffer buffer(int ordinal) {
            return Interpreter.buffer(refs, ordinal, "buffer");
        }

        @Override
        public VmList list(int ordinal) {
            return Interpreter.list(refs, ordinal);
        }

        @Override
        public int globalI32(int byteOffset) {
            return (int) I32.get(st.rwdata, byteOffset);
        }

        @Override
        public void setGlobalI32(int byteOffset, int value) {
            I32.set(st.rwdata, byteOffset, value);
        }

        @Override
        public long globalI64(int byteOffset) {
            return (long) I64.get(st.rwdata, byteOffset);
        }

        @Override
        public void setGlobalI64(int byteOffset, long value) {
            I64.set(st.rwdata, byteOffset, value);
        }

        @Override
        public void checkGlobalRange(int byteOffset, int length) {
            checkGlobal(st, byteOffset, length);
        }
    }
}
