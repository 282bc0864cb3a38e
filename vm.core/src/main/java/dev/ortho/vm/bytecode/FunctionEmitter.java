package dev.ortho.vm.bytecode;

import static dev.ortho.base.MessageText.printable;
import static dev.ortho.vm.bytecode.Compiler.CD_ENV;
import static dev.ortho.vm.bytecode.Compiler.CD_FUNCTION;
import static dev.ortho.vm.bytecode.Compiler.CD_REF;
import static dev.ortho.vm.bytecode.Compiler.CD_REF_ARRAY;
import static dev.ortho.vm.bytecode.Compiler.CD_STATE;
import static dev.ortho.vm.bytecode.Compiler.CD_STATUS;
import static dev.ortho.vm.bytecode.Compiler.CD_SUPPORT;
import static dev.ortho.vm.bytecode.Interpreter.MOVE_BIT;
import static dev.ortho.vm.bytecode.Interpreter.TYPE_BIT;
import static dev.ortho.vm.bytecode.MethodFrame.reg;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.ortho.vm.bytecode.Compiler.Acc;
import dev.ortho.vm.bytecode.Compiler.Insn;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.internal.isa.CoreOps;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Emits one compiled function's JVM method for {@link Compiler}: the prologue (zeroed registers,
 * the arguments), control flow (blocks as labels, branches with their operand lists, branch
 * tables, {@code vm.fail}), ref ops, the ops run by the interpreter's helpers on spilled
 * registers, and the trap handler that records {@code function+pc} and releases the frame's refs
 * as the unwinder does. The frame's locals and register accesses are {@link MethodFrame}'s; op
 * families are emitted by {@link IntegerOpEmitter}, {@link FloatOpEmitter},
 * {@link BufferOpEmitter} and {@link CallEmitter}.
 *
 * <p>Registers: if {@link RegisterWebs} types every value of the function, each web of the i32
 * bank is one JVM local of its type ({@code int}, {@code float}, {@code long}, {@code double}) and
 * bits move between types only where the code reinterprets them (bitcasts, calls, ops run by the
 * interpreter's helpers). Otherwise each i32 register is an {@code int} local and a 64-bit
 * register the interpreter's aligned pair. Ref registers are {@code RefObject} locals with the
 * interpreter's retain/move/release rules.
 */
final class FunctionEmitter {
    private final BytecodeModule m;
    private final int f;
    private final CodeBuilder cb;
    private final int base;
    private final List<Insn> insns;
    private final MethodFrame fr;
    private final IntegerOpEmitter ints;
    private final FloatOpEmitter floats;
    private final BufferOpEmitter buffers;
    private final CallEmitter calls;
    private final BitSet used32 = new BitSet();
    private final BitSet usedRef = new BitSet();
    private final Map<Integer, Label> blocks = new HashMap<>();
    private boolean scratch;
    /** The part of the function this method holds, or null for all of it. */
    private final MethodSplitter.Region region;
    /** Instruction indices [from, to) emitted here. */
    private final int from;
    private final int to;
    /** Region mode: the webs (or slots) the region touches and those it writes. */
    private final BitSet usedWebs = new BitSet();
    private final BitSet writtenWebs = new BitSet();
    /** Region mode: per instruction index outside the region that control leaves to, its exit code. */
    private final Map<Integer, Label> exits = new java.util.TreeMap<>();
    /** Region mode: where a {@code vm.return} goes once the results are in the environment. */
    private Label returned;
    /** Marks the start of each instruction with its index as a line number ({@link MethodSplitter#measure}). */
    private final boolean markLines;
    /** Per web of typed locals: its accesses in the whole function (null in the slot representation). */
    private final int[] webAccesses;
    /** Block pc -> instruction index, for the whole function. */
    private final Map<Integer, Integer> blockIndex;
    /** The loop-invariant buffer registers of the emitted instructions. */
    private final BufferLoops loops;
    /** Per loop header with caches (instruction index): the code that loads them, then falls into the block. */
    private final Map<Integer, Label> loopEntries = new HashMap<>();
    /** The instruction index of the block being emitted (or of the region's first instruction). */
    private int block;

    FunctionEmitter(Compiler compiler, int f, CodeBuilder cb, RegisterWebs webs) {
        this(compiler, f, cb, webs, null, false);
    }

    /**
     * Emits function {@code f}, or only {@code region} of it as one method of a split function
     * ({@link MethodSplitter}: parameters {@code (Env, long[] bits, RefObject[] refs, int entry)},
     * returns the instruction index to continue at, -1 after {@code vm.return}).
     */
    FunctionEmitter(Compiler compiler, int f, CodeBuilder cb, RegisterWebs webs, MethodSplitter.Region region,
                    boolean markLines) {
        this.m = compiler.m;
        this.f = f;
        this.cb = cb;
        this.base = m.fnBase[f];
        this.insns = compiler.code.get(f);
        this.region = region;
        this.markLines = markLines;
        this.from = region == null ? 0 : region.from();
        this.to = region == null ? insns.size() : region.to();
        String args = m.fnCconv[f].arguments().types();
        int slot = region == null ? MethodFrame.argumentLocals(args)[args.length()] : MethodSplitter.REGION_FIRST_LOCAL;
        this.blockIndex = region == null ? MethodSplitter.blockIndex(insns) : region.blockIndex();
        this.loops = BufferLoops.of(m, insns, from, to, region == null ? new int[0] : region.entries(), blockIndex);
        this.fr = new MethodFrame(m, f, cb, webs, slot, loops.caches.size());
        this.webAccesses = webs == null ? null : new int[webs.count];
        if (webs != null) {
            for (Insn i : insns) {
                for (Acc[] list : i.acc()) {
                    for (Acc x : list == null ? new Acc[0] : list) {
                        if (x != null) {
                            webAccesses[webs.webOf[x.id()]]++;
                        }
                    }
                }
            }
        }
        this.ints = new IntegerOpEmitter(fr);
        this.buffers = new BufferOpEmitter(fr);
        this.floats = new FloatOpEmitter(fr, buffers);
        this.calls = new CallEmitter(compiler, fr);
        for (Insn i : insns.subList(from, to)) {
            used32.or(i.touch32());
            usedRef.or(i.touchRef());
            if (i.opcode() == CoreOps.BLOCK) {
                blocks.put(i.pc(), cb.newLabel());
            } else if (!inline(i)) {
                scratch = true;
            }
            if (region != null && webs != null) {
                for (Acc[] list : i.acc()) {
                    for (Acc x : list == null ? new Acc[0] : list) {
                        if (x != null) {
                            usedWebs.set(webs.webOf[x.id()]);
                            if (x.write()) {
                                writtenWebs.set(webs.webOf[x.id()]);
                            }
                        }
                    }
                }
            }
        }
        if (region != null && webs == null) {
            usedWebs.or(used32);
            writtenWebs.or(used32);
        }
    }

    void emit() {
        if (region == null) {
            prologue();
        } else {
            regionPrologue();
        }
        Label start = cb.newLabel();
        Label end = cb.newLabel();
        Label handler = cb.newLabel();
        cb.labelBinding(start);
        if (region != null) {
            returned = cb.newLabel();
            entrySwitch();
        }
        block = from;
        for (int k = from; k < to; k++) {
            if (markLines) {
                cb.lineNumber(k & 0xFFFF);
            }
            if (insns.get(k).opcode() == CoreOps.BLOCK) {
                block = k;
                enterLoop(k);
            }
            buffers.useCache(loops.cacheOf(k));
            Insn next = k + 1 < to ? insns.get(k + 1) : null;
            if (fusable(insns.get(k), next)) {
                fr.fuse(new Fused(insns.get(k), next));
            }
            op(insns.get(k));
            if (fr.fusedAndClear()) {
                k++; // the vm.cond_br went out with the compare
            }
        }
        if (markLines) {
            cb.lineNumber(to & 0xFFFF);
        }
        if (to < insns.size()) {
            cb.goto_(exit(to));
            cb.labelBinding(end);
        } else {
            // A vm.fail with an OK status in the last block falls through to here.
            cb.iconst_0().pop();
            cb.labelBinding(end);
            cb.invokestatic(CD_SUPPORT, "pastEnd", MethodTypeDesc.of(CD_STATUS)).athrow();
        }
        cb.labelBinding(handler);
        // [Throwable] -> trap(env, t, pc, fn); release the frame's refs as the unwinder would.
        cb.astore(fr.tmpRef);
        for (int k = usedRef.nextSetBit(0); k >= 0; k = usedRef.nextSetBit(k + 1)) {
            cb.aload(fr.r0 + k);
            fr.release();
        }
        cb.aload(0).aload(fr.tmpRef).iload(fr.pcLocal).loadConstant(f);
        cb.invokestatic(CD_SUPPORT, "trap", MethodTypeDesc.of(ConstantDescs.CD_Throwable, CD_ENV,
                ConstantDescs.CD_Throwable, CD_int, CD_int));
        cb.athrow();
        cb.exceptionCatchAll(start, end, handler);
        if (region != null) {
            regionExits();
        }
    }

    // ---------------------------------------------------------------- regions of a split function

    /** Loads the registers the region touches from the dispatcher's arrays (moving the refs). */
    private void regionPrologue() {
        for (int w = usedWebs.nextSetBit(0); w >= 0; w = usedWebs.nextSetBit(w + 1)) {
            cb.aload(MethodSplitter.BITS).loadConstant(w).laload();
            if (fr.webs == null) {
                cb.l2i().istore(fr.i0 + w);
            } else {
                char r = fr.webs.repr[w];
                if (r == 'i' || r == 'f') {
                    cb.l2i();
                    fr.convert('i', r);
                } else {
                    fr.convert('I', r);
                }
                fr.storeLocal(r, fr.webLocal[w]);
            }
        }
        for (int k = usedRef.nextSetBit(0); k >= 0; k = usedRef.nextSetBit(k + 1)) {
            cb.aload(MethodSplitter.REFS).loadConstant(k).aaload().astore(fr.r0 + k);
            cb.aload(MethodSplitter.REFS).loadConstant(k).aconst_null().aastore();
        }
        for (int c = 0; c < fr.caches; c++) {
            buffers.clearCache(c);
        }
        cb.iconst_0().istore(fr.pcLocal);
        if (scratch) {
            scratchArrays();
        }
    }

    /** The register arrays of ops in interpreter form: the environment's shared pair (no allocation per call). */
    private void scratchArrays() {
        cb.aload(0).loadConstant(m.fnI32[f]);
        cb.invokevirtual(CD_ENV, "i32Scratch", MethodTypeDesc.of(CD_int.arrayType(), CD_int)).astore(fr.rArray);
        cb.aload(0).loadConstant(m.fnRef[f]);
        cb.invokevirtual(CD_ENV, "refScratch", MethodTypeDesc.of(CD_REF_ARRAY, CD_int)).astore(fr.refArray);
    }

    /** Jumps to the region's entry the dispatcher asked for (its first instruction by default). */
    private void entrySwitch() {
        int[] entries = region.entries();
        if (entries.length <= 1) {
            return;
        }
        Label first = cb.newLabel();
        List<SwitchCase> cases = new ArrayList<>();
        for (int e : entries) {
            if (e != from) {
                // From outside every loop: through the loop's cache loads, if it has any.
                cases.add(SwitchCase.of(e, loops.cachesAt(e).isEmpty() ? blocks.get(insns.get(e).pc())
                        : loopEntry(e)));
            }
        }
        cb.iload(MethodSplitter.ENTRY);
        cb.lookupswitch(first, cases);
        cb.labelBinding(first);
    }

    /** The code that leaves the region for instruction {@code index}. */
    private Label exit(int index) {
        return exits.computeIfAbsent(index, k -> cb.newLabel());
    }

    /**
     * Per exit: the instruction index to continue at into a local, then one common exit that
     * stores the registers the region wrote (and every ref it holds) back to the dispatcher's
     * arrays and returns that index; after a {@code vm.return}, returns -1.
     */
    private void regionExits() {
        if (!exits.isEmpty()) {
            storeAndLeave();
        }
        if (insns.subList(from, to).stream().anyMatch(i -> i.opcode() == CoreOps.RETURN)) {
            // As the unsplit method's return: the refs left in registers are dropped, not released.
            cb.labelBinding(returned);
            cb.iconst_m1().ireturn();
        }
    }

    private void storeAndLeave() {
        Label common = cb.newLabel();
        // tmpIdx holds the index (an int) on every path into the common exit.
        for (Map.Entry<Integer, Label> e : exits.entrySet()) {
            cb.labelBinding(e.getValue());
            cb.loadConstant(e.getKey()).istore(fr.tmpIdx).goto_(common);
        }
        cb.labelBinding(common);
        for (int w = writtenWebs.nextSetBit(0); w >= 0; w = writtenWebs.nextSetBit(w + 1)) {
            cb.aload(MethodSplitter.BITS).loadConstant(w);
            if (fr.webs == null) {
                cb.iload(fr.i0 + w).i2l();
            } else {
                char r = fr.webs.repr[w];
                switch (r) {
                    case 'i' -> cb.iload(fr.webLocal[w]).i2l();
                    case 'f' -> {
                        cb.fload(fr.webLocal[w]);
                        fr.convert('f', 'i');
                        cb.i2l();
                    }
                    case 'I' -> cb.lload(fr.webLocal[w]);
                    default -> {
                        cb.dload(fr.webLocal[w]);
                        fr.convert('F', 'I');
                    }
                }
            }
            cb.lastore();
        }
        for (int k = usedRef.nextSetBit(0); k >= 0; k = usedRef.nextSetBit(k + 1)) {
            cb.aload(MethodSplitter.REFS).loadConstant(k).aload(fr.r0 + k).aastore();
        }
        cb.iload(fr.tmpIdx).ireturn();
    }

    /** Zeroed registers (as a fresh frame), then the arguments. */
    private void prologue() {
        String args = m.fnCconv[f].arguments().types();
        int[] argSlot = MethodFrame.argumentLocals(args);
        if (fr.webs == null) {
            for (int k = used32.nextSetBit(0); k >= 0; k = used32.nextSetBit(k + 1)) {
                cb.iconst_0().istore(fr.i0 + k);
            }
        } else {
            for (int w = 0; w < fr.webs.count; w++) {
                char r = fr.webs.repr[w];
                int a = fr.webs.arg[w];
                if (a >= 0) {
                    boolean wide = r == 'I' || r == 'F';
                    if (wide) {
                        cb.lload(argSlot[a]);
                    } else {
                        cb.iload(argSlot[a]);
                    }
                    fr.convert(wide ? 'I' : 'i', r);
                } else {
                    switch (r) {
                        case 'i' -> cb.iconst_0();
                        case 'f' -> cb.fconst_0();
                        case 'I' -> cb.lconst_0();
                        default -> cb.dconst_0();
                    }
                }
                fr.storeLocal(r, fr.webLocal[w]);
            }
        }
        for (int k = usedRef.nextSetBit(0); k >= 0; k = usedRef.nextSetBit(k + 1)) {
            cb.aconst_null().astore(fr.r0 + k);
        }
        for (int c = 0; c < fr.caches; c++) {
            buffers.clearCache(c);
        }
        cb.iconst_0().istore(fr.pcLocal);
        if (scratch) {
            scratchArrays();
        }
        int ri = 0;
        int rr = 0;
        for (int k = 0; k < args.length(); k++) {
            switch (args.charAt(k)) {
                case 'I', 'F' -> {
                    ri += ri & 1;
                    if (fr.webs == null) {
                        cb.lload(argSlot[k]);
                        fr.st64(ri);
                    }
                    ri += 2;
                }
                case 'r' -> {
                    cb.aload(argSlot[k]).astore(fr.r0 + rr);
                    usedRef.set(rr);
                    rr++;
                }
                default -> {
                    if (fr.webs == null) {
                        cb.iload(argSlot[k]).istore(fr.i0 + ri);
                    }
                    ri++;
                }
            }
        }
    }


    /** A branch operand list, in order; a wide access moves a register pair at once. */
    private void remap(int[] pairs, Acc[] acc) {
        for (int k = 0; k < pairs.length; k += 2) {
            int s = pairs[k];
            if ((s & TYPE_BIT) != 0) {
                fr.retainOrMove(s, pairs[k + 1]);
            } else if (acc[k] != null) {
                char r = fr.reprOf(acc[k + 1]);
                fr.ld(acc[k], r);
                fr.st(acc[k + 1], r);
            }
        }
    }

    /**
     * Binds the label of the code that loads the buffer caches of the loop headed by block
     * {@code k} (if it has any) before the block: control that falls into the block from the
     * previous one, or comes from outside the loop, runs it.
     */
    private void enterLoop(int k) {
        List<Integer> caches = loops.cachesAt(k);
        if (caches.isEmpty()) {
            return;
        }
        cb.labelBinding(loopEntry(k));
        for (int c : caches) {
            buffers.loadCache(c, loops.caches.get(c).ref());
        }
    }

    private Label loopEntry(int k) {
        return loopEntries.computeIfAbsent(k, x -> cb.newLabel());
    }

    /** Where a jump from the current block to the block at instruction {@code k} goes. */
    private Label target(int k) {
        return loops.cachesAt(k).isEmpty() || loops.inLoop(k, block) ? blocks.get(insns.get(k).pc())
                : loopEntry(k);
    }

    /**
     * True if {@code i} is an integer or ref compare whose result only decides the
     * {@code vm.cond_br} right after it ({@code next}): the two are emitted as one JVM
     * compare-and-branch (the result is still stored, for any later reader).
     */
    private static boolean fusable(Insn i, Insn next) {
        if (next == null || next.opcode() != CoreOps.COND_BRANCH) {
            return false;
        }
        Acc result = resultOf(i);
        Acc cond = next.a(0);
        return result != null && cond != null && !result.wide() && !cond.wide() && result.slot() == cond.slot();
    }

    /** The result access of an integer or ref compare that {@link #fusable} accepts, else null. */
    private static Acc resultOf(Insn i) {
        return switch (i.opcode()) {
            case CoreOps.CMP_EQI32, CoreOps.CMP_NEI32, CoreOps.CMP_LTI32_S, CoreOps.CMP_EQI64, CoreOps.CMP_NEI64,
                 CoreOps.CMP_LTI64_S, CoreOps.CMP_EQREF, CoreOps.CMP_NEREF -> i.a(2);
            case CoreOps.CMP_NZI32, CoreOps.CMP_NZI64, CoreOps.CMP_NZREF -> i.a(1);
            default -> null;
        };
    }

    /** The {@code vm.cond_br} {@code br} fused with the compare {@code cmp} right before it. */
    private final class Fused implements MethodFrame.FusedBranch {
        private final Insn cmp;
        private final Insn br;

        Fused(Insn cmp, Insn br) {
            this.cmp = cmp;
            this.br = br;
        }

        @Override
        public boolean resultDead() {
            // Typed locals: the compare's web holds just its write and the branch's read.
            return fr.webs != null && webAccesses[fr.webs.webOf[br.a(0).id()]] == 2
                    && fr.webs.webOf[br.a(0).id()] == fr.webs.webOf[resultOf(cmp).id()];
        }

        @Override
        public void before() {
            fr.setPc(br.pc());
        }

        @Override
        public Label direct(boolean taken) {
            int target = (Integer) br.ops().get(taken ? 1 : 3);
            int[] pairs = (int[]) br.ops().get(taken ? 2 : 4);
            Integer index = blockIndex.get(target);
            if (pairs.length > 0 || index == null || index < from || index >= to) {
                return null;
            }
            Label l = target(index);
            return l == blocks.get(target) ? l : null;
        }

        @Override
        public void path(boolean taken) {
            if (taken) {
                branchTo((Integer) br.ops().get(1), (int[]) br.ops().get(2), br.acc()[2]);
            } else {
                branchTo((Integer) br.ops().get(3), (int[]) br.ops().get(4), br.acc()[4]);
            }
        }
    }

    private void branchTo(int target, int[] pairs, Acc[] acc) {
        remap(pairs, acc);
        Integer index = blockIndex.get(target);
        Label l = index != null && index >= from && index < to ? target(index) : null;
        if (l == null && region != null) {
            l = index == null ? null : exit(index);
        }
        if (l == null) {
            throw new IllegalStateException("branch target " + target + " is not a block");
        }
        cb.goto_(l);
    }

    // ---------------------------------------------------------------- ops

    private boolean inline(Insn i) {
        if (i.opcode() < 0xE0) {
            return switch (i.opcode()) {
                case CoreOps.CONST_I32_ZERO, CoreOps.CONST_I32, CoreOps.CONST_I64_ZERO, CoreOps.CONST_I64,
                     CoreOps.CONST_REF_ZERO, CoreOps.DISCARD_REFS, CoreOps.ASSIGN_REF, CoreOps.SELECT_I32,
                     CoreOps.SELECT_I64, CoreOps.ADD_I32, CoreOps.SUB_I32, CoreOps.MUL_I32, CoreOps.AND_I32,
                     CoreOps.OR_I32, CoreOps.XOR_I32, CoreOps.SHL_I32, CoreOps.SHR_I32_S, CoreOps.SHR_I32_U,
                     CoreOps.DIV_I32_S, CoreOps.DIV_I32_U, CoreOps.REM_I32_S, CoreOps.REM_I32_U, CoreOps.FMAI32,
                     CoreOps.NOT_I32, CoreOps.CTLZ_I32, CoreOps.ABS_I32, CoreOps.MIN_I32_S, CoreOps.MIN_I32_U,
                     CoreOps.MAX_I32_S, CoreOps.MAX_I32_U, CoreOps.TRUNC_I32_I8, CoreOps.TRUNC_I32_I16,
                     CoreOps.EXT_I8_I32_S, CoreOps.EXT_I8_I32_U, CoreOps.EXT_I16_I32_S, CoreOps.EXT_I16_I32_U,
                     CoreOps.CMP_EQI32, CoreOps.CMP_NEI32, CoreOps.CMP_LTI32_S, CoreOps.CMP_LTI32_U,
                     CoreOps.CMP_NZI32, CoreOps.ADD_I64, CoreOps.SUB_I64, CoreOps.MUL_I64, CoreOps.AND_I64,
                     CoreOps.OR_I64, CoreOps.XOR_I64, CoreOps.SHL_I64, CoreOps.SHR_I64_S, CoreOps.SHR_I64_U,
                     CoreOps.DIV_I64_S, CoreOps.DIV_I64_U, CoreOps.REM_I64_S, CoreOps.REM_I64_U, CoreOps.FMAI64,
                     CoreOps.NOT_I64, CoreOps.CTLZ_I64, CoreOps.ABS_I64, CoreOps.MIN_I64_S, CoreOps.MIN_I64_U,
                     CoreOps.MAX_I64_S, CoreOps.MAX_I64_U,
                     CoreOps.CMP_EQI64, CoreOps.CMP_NEI64, CoreOps.CMP_LTI64_S, CoreOps.CMP_LTI64_U,
                     CoreOps.CMP_NZI64, CoreOps.EXT_I32_I64_S, CoreOps.EXT_I32_I64_U, CoreOps.TRUNC_I64_I32,
                     CoreOps.CMP_EQREF, CoreOps.CMP_NEREF, CoreOps.CMP_NZREF, CoreOps.BLOCK, CoreOps.BRANCH,
                     CoreOps.COND_BRANCH, CoreOps.BRANCH_TABLE, CoreOps.CALL, CoreOps.RETURN, CoreOps.FAIL,
                     CoreOps.TRACE, CoreOps.PRINT, CoreOps.IMPORT_RESOLVED, CoreOps.BUFFER_LOAD_I8_U,
                     CoreOps.BUFFER_LOAD_I8_S, CoreOps.BUFFER_LOAD_I16_U, CoreOps.BUFFER_LOAD_I16_S,
                     CoreOps.BUFFER_LOAD_I32, CoreOps.BUFFER_LOAD_I64, CoreOps.BUFFER_STORE_I8,
                     CoreOps.BUFFER_STORE_I16, CoreOps.BUFFER_STORE_I32, CoreOps.BUFFER_STORE_I64 -> true;
                default -> false;
            };
        }
        return FloatOpEmitter.floatOp(m, i) != null;
    }


    private void op(Insn i) {
        if (!inline(i)) {
            generic(i);
        } else if (i.opcode() >= 0xE0) {
            floats.emit(i, FloatOpEmitter.floatOp(m, i), m.extensions[i.opcode() - 0xE0] instanceof ExtF64Extension);
        } else if (!ints.emit(i) && !buffers.emit(i)) {
            core(i);
        }
    }

    /** Spills what the op reads, runs the interpreter's helper, reloads what it writes. */
    private void generic(Insn i) {
        fr.setPc(i.pc());
        if (fr.webs == null) {
            for (int k = i.touch32().nextSetBit(0); k >= 0; k = i.touch32().nextSetBit(k + 1)) {
                cb.aload(fr.rArray).loadConstant(k).iload(fr.i0 + k).iastore();
            }
        } else {
            for (Acc[] list : i.acc()) {
                for (Acc a : list == null ? new Acc[0] : list) {
                    if (a != null && !a.write()) {
                        if (a.wide()) {
                            fr.ld(a, 'I');
                            cb.lstore(fr.tmpOff);
                            cb.aload(fr.rArray).loadConstant(a.slot()).lload(fr.tmpOff).l2i().iastore();
                            cb.aload(fr.rArray).loadConstant(a.slot() + 1).lload(fr.tmpOff).bipush(32).lushr().l2i()
                                    .iastore();
                        } else {
                            cb.aload(fr.rArray).loadConstant(a.slot());
                            fr.ld(a, 'i');
                            cb.iastore();
                        }
                    }
                }
            }
        }
        for (int k = i.touchRef().nextSetBit(0); k >= 0; k = i.touchRef().nextSetBit(k + 1)) {
            cb.aload(fr.refArray).loadConstant(k).aload(fr.r0 + k).aastore();
        }
        cb.aload(0).loadConstant(base + i.pc()).loadConstant(base).aload(fr.rArray).aload(fr.refArray);
        cb.invokestatic(CD_SUPPORT, "op", MethodTypeDesc.of(CD_void, CD_ENV, CD_int, CD_int,
                CD_int.arrayType(), CD_REF_ARRAY));
        if (fr.webs == null) {
            for (int k = i.touch32().nextSetBit(0); k >= 0; k = i.touch32().nextSetBit(k + 1)) {
                cb.aload(fr.rArray).loadConstant(k).iaload().istore(fr.i0 + k);
            }
        } else {
            for (Acc[] list : i.acc()) {
                for (Acc a : list == null ? new Acc[0] : list) {
                    if (a != null && a.write()) {
                        if (a.wide()) {
                            cb.aload(fr.rArray).loadConstant(a.slot() + 1).iaload().i2l().bipush(32).lshl();
                            cb.aload(fr.rArray).loadConstant(a.slot()).iaload().i2l().loadConstant(0xFFFF_FFFFL)
                                    .land().lor();
                            fr.st(a, 'I');
                        } else {
                            cb.aload(fr.rArray).loadConstant(a.slot()).iaload();
                            fr.st(a, 'i');
                        }
                    }
                }
            }
        }
        for (int k = i.touchRef().nextSetBit(0); k >= 0; k = i.touchRef().nextSetBit(k + 1)) {
            cb.aload(fr.refArray).loadConstant(k).aaload().astore(fr.r0 + k);
            cb.aload(fr.refArray).loadConstant(k).aconst_null().aastore();
        }
    }


    /** Control flow, ref ops, calls, {@code vm.fail}, traces and {@code vm.import.resolved}. */
    private void core(Insn i) {
        switch (i.opcode()) {
            case CoreOps.BLOCK -> cb.labelBinding(blocks.get(i.pc()));
            case CoreOps.CONST_REF_ZERO -> {
                fr.setPc(i.pc());
                cb.aconst_null();
                fr.assignRef(reg(i, 0));
            }
            case CoreOps.DISCARD_REFS -> {
                fr.setPc(i.pc());
                for (int r : (int[]) i.ops().get(0)) {
                    cb.aconst_null();
                    fr.assignRef(r);
                }
            }
            case CoreOps.ASSIGN_REF -> {
                fr.setPc(i.pc());
                fr.retainOrMove(reg(i, 0), reg(i, 1));
            }
            case CoreOps.CMP_EQREF, CoreOps.CMP_NEREF -> {
                cb.aload(fr.ref(reg(i, 0))).aload(fr.ref(reg(i, 1)));
                fr.bool(i.opcode() == CoreOps.CMP_EQREF ? Opcode.IF_ACMPEQ : Opcode.IF_ACMPNE, i.a(2));
            }
            case CoreOps.CMP_NZREF -> {
                cb.aload(fr.ref(reg(i, 0)));
                fr.bool(Opcode.IFNONNULL, i.a(1));
            }
            case CoreOps.BRANCH -> {
                fr.setPc(i.pc());
                branchTo((Integer) i.ops().get(0), (int[]) i.ops().get(1), i.acc()[1]);
            }
            case CoreOps.COND_BRANCH -> {
                fr.setPc(i.pc());
                Label fl = cb.newLabel();
                fr.ld(i.a(0), 'i');
                cb.ifeq(fl);
                branchTo((Integer) i.ops().get(1), (int[]) i.ops().get(2), i.acc()[2]);
                cb.labelBinding(fl);
                branchTo((Integer) i.ops().get(3), (int[]) i.ops().get(4), i.acc()[4]);
            }
            case CoreOps.BRANCH_TABLE -> {
                fr.setPc(i.pc());
                int size = (Integer) i.ops().get(3);
                Label dflt = cb.newLabel();
                List<SwitchCase> cases = new ArrayList<>();
                List<Label> labels = new ArrayList<>();
                for (int k = 0; k < size; k++) {
                    Label l = cb.newLabel();
                    labels.add(l);
                    cases.add(SwitchCase.of(k, l));
                }
                if (size > 0) {
                    fr.ld(i.a(0), 'i');
                    cb.tableswitch(0, size - 1, dflt, cases);
                    for (int k = 0; k < size; k++) {
                        cb.labelBinding(labels.get(k));
                        branchTo((Integer) i.ops().get(4 + 2 * k), (int[]) i.ops().get(5 + 2 * k),
                                i.acc()[5 + 2 * k]);
                    }
                }
                cb.labelBinding(dflt);
                branchTo((Integer) i.ops().get(1), (int[]) i.ops().get(2), i.acc()[2]);
            }
            case CoreOps.CALL -> calls.call(i);
            case CoreOps.RETURN -> calls.ret(i, returned);
            case CoreOps.FAIL -> {
                fr.setPc(i.pc());
                int[] s = (int[]) i.ops().get(1);
                String message = printable(new String(m.code, s[0], s[1], StandardCharsets.UTF_8));
                Label ok = cb.newLabel();
                fr.ld(i.a(0), 'i');
                cb.ifeq(ok);
                fr.ld(i.a(0), 'i');
                cb.loadConstant(message);
                cb.invokestatic(CD_SUPPORT, "fail", MethodTypeDesc.of(CD_STATUS, CD_int, ConstantDescs.CD_String));
                cb.athrow();
                cb.labelBinding(ok);
            }
            case CoreOps.TRACE, CoreOps.PRINT -> {
                fr.setPc(i.pc());
                for (int r : (int[]) i.ops().get(1)) {
                    if ((r & (TYPE_BIT | MOVE_BIT)) == (TYPE_BIT | MOVE_BIT)) {
                        cb.aconst_null();
                        fr.assignRef(r);
                    }
                }
            }
            case CoreOps.IMPORT_RESOLVED -> {
                int ordinal = (Integer) i.ops().get(0) & 0x7FFF_FFFF;
                cb.aload(0).getfield(CD_ENV, "st", CD_STATE).getfield(CD_STATE, "imports",
                        CD_FUNCTION.arrayType()).loadConstant(ordinal).aaload();
                fr.bool(Opcode.IFNONNULL, i.a(1));
            }
            default -> throw new IllegalStateException("no inline form of opcode " + i.opcode());
        }
    }
}
