package dev.ortho.vm.bytecode;

import static dev.ortho.base.MessageText.printable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Call;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.Frame;
import dev.ortho.vm.FrameType;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.RefType;
import dev.ortho.vm.Stack;
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
    static final VarHandle I16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle I32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle I64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** Helper result: the current frame changed; reload the dispatch state from the stack top. */
    static final int RELOAD = -1;
    /** Helper result: the call deferred; return DEFERRED. */
    static final int DEFER = -2;
    /** Helper result: the entry frame returned; return COMPLETED. */
    static final int DONE = -3;

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
        RefObject.release(old);
    }

    /** IREE's retain_or_move between two ref slots (possibly of different frames). */
    static void retainOrMove(boolean move, RefObject[] src, int s, RefObject[] dst, int d) {
        RefObject v = src[s];
        if (move) {
            if (src == dst && s == d) {
                return;
            }
            src[s] = null;
        } else {
            RefObject.retain(v);
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
                    + printable(m.typeNames[typeOrdinal]) + " but got " + printable(src[s].refType().name()));
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
                frame.setPc(InterpreterCalls.finishImport(m, st, frame, op) - m.fnBase[fn]);
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
        // LAZY modules count loop back-edges until they compile (then the next call runs compiled).
        boolean countBackEdges = m.countsBackEdges();
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
                         CoreOps.GLOBAL_STORE_INDIRECT_REF -> next = InterpreterOps.globalOp(m, st, c, pc, r, refs);
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
                         CoreOps.LIST_GET_REF, CoreOps.LIST_SET_REF ->
                            next = InterpreterOps.listOp(m, stack.context().hostMemoryLimit(), c, pc, r, refs);
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
                         CoreOps.CAST_ANY_REF -> next = InterpreterOps.selectOp(m, c, pc, base, r, refs);
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
                         CoreOps.EXT_I16_I32_U -> next = InterpreterOps.intOp(c, pc, r);
                    case CoreOps.ADD_I64, CoreOps.SUB_I64, CoreOps.MUL_I64, CoreOps.DIV_I64_S, CoreOps.DIV_I64_U,
                         CoreOps.REM_I64_S, CoreOps.REM_I64_U, CoreOps.FMAI64, CoreOps.NOT_I64, CoreOps.AND_I64,
                         CoreOps.OR_I64, CoreOps.XOR_I64, CoreOps.SHL_I64, CoreOps.SHR_I64_S, CoreOps.SHR_I64_U,
                         CoreOps.TRUNC_I64_I32, CoreOps.EXT_I32_I64_S, CoreOps.EXT_I32_I64_U, CoreOps.CMP_EQI64,
                         CoreOps.CMP_NEI64, CoreOps.CMP_LTI64_S, CoreOps.CMP_LTI64_U, CoreOps.CMP_NZI64,
                         CoreOps.CTLZ_I64, CoreOps.ABS_I64, CoreOps.MIN_I64_S, CoreOps.MIN_I64_U, CoreOps.MAX_I64_S,
                         CoreOps.MAX_I64_U -> next = InterpreterOps.longOp(c, pc, r);
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
                        if (countBackEdges && base + target < pc) {
                            countBackEdges = m.backEdge();
                        }
                        pc = base + target + 1;
                        continue;
                    }
                    case CoreOps.COND_BRANCH -> {
                        int target;
                        int l;
                        if (r[((int) (w >>> 8) & 0xFFFF)] != 0) {
                            // the true target is bytes 3..6 of the word already loaded
                            target = (int) (w >>> 24);
                            l = align(pc + 7, base);
                        } else {
                            int t = align(pc + 7, base);
                            int p = t + 2 + 4 * u16(c, t);
                            target = i32(c, p);
                            l = align(p + 4, base);
                        }
                        if (u16(c, l) != 0) {
                            remap(c, l, r, refs);
                        }
                        if (countBackEdges && base + target < pc) {
                            countBackEdges = m.backEdge();
                        }
                        pc = base + target + 1;
                        continue;
                    }
                    case CoreOps.BRANCH_TABLE -> {
                        pc = branchTable(c, pc, base, r, refs);
                        continue;
                    }
                    case CoreOps.CALL, CoreOps.CALL_VARIADIC, CoreOps.CALL_YIELDABLE,
                         CoreOps.CALL_VARIADIC_YIELDABLE -> next = InterpreterCalls.call(m, st, stack, frame, fn, c, pc);
                    case CoreOps.RETURN -> next = InterpreterCalls.ret(m, stack, frame, fn, c, pc);
                    case CoreOps.FAIL -> {
                        int code = r[((int) (w >>> 8) & 0xFFFF)];
                        int len = ((int) (w >>> 24) & 0xFFFF);
                        if (code != 0) {
                            throw new StatusException(StatusCode.fromValue(code),
                                    printable(new String(c, pc + 5, len, StandardCharsets.UTF_8)));
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
                         CoreOps.BUFFER_HASH ->
                            next = InterpreterOps.bufferOp(stack.context(), c, pc, r, refs);
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
            throw new StatusException(StatusCode.INTERNAL, "interpreter fault at " + printable(m.name) + "."
                    + printable(frame.function().name()) + "+" + String.format("%08X", op - base) + ": " + e, e);
        }
    }

    private static void trace(BytecodeModule m, Frame frame, int fn, int rel, byte[] c, int pc) {
        if (LOG.isInfoEnabled()) {
            int opcode = c[pc] & 0xFF;
            String mnemonic = Disassembly.mnemonic(m, opcode, pc + 1 < c.length ? c[pc + 1] & 0xFF : 0);
            LOG.info(String.format("[%2d] %s.%s+%08X %s", frame.depth(), m.name, m.internal[fn].name(), rel, mnemonic));
        }
    }

    static void remap(byte[] c, int p, int[] r, RefObject[] refs) {
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
}
