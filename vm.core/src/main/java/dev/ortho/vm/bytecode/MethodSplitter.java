package dev.ortho.vm.bytecode;

import static dev.ortho.vm.bytecode.Compiler.CD_ENV;
import static dev.ortho.vm.bytecode.Compiler.CD_REF_ARRAY;
import static dev.ortho.vm.bytecode.Compiler.CD_SUPPORT;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.ortho.vm.bytecode.Compiler.Insn;
import dev.ortho.vm.internal.isa.CoreOps;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.LineNumberInfo;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits a function whose JVM method would reach {@link #C1_METHOD_LIMIT} (4,000 bytes of
 * bytecode, half HotSpot's {@code HugeMethodLimit}: HotSpot never JIT-compiles a method of 8,000
 * bytes unless the JVM runs with {@code -XX:-DontCompileHugeMethods}, and C1 fails on generated
 * methods well below that) into several methods, so every method of the generated class is
 * JIT-compiled through all tiers, and functions beyond the class file's 64 KiB code limit compile too.
 *
 * <p>The function's instructions are cut into contiguous regions, preferably between loops (a
 * cut inside a loop would cost a method call per iteration); a cut may fall inside a block,
 * which then continues in the next region. Each region is one method
 * {@code f<N>_<k>(Env, long[] bits, RefObject[] refs, int entry)} that loads the registers it
 * touches from the two arrays (moving the refs out), runs its instructions exactly as the
 * unsplit method would, and on leaving stores what it wrote back and returns the instruction
 * index to continue at, or -1 after {@code vm.return} (the results then are in the call
 * environment, as for a call with several results). Method {@code f<N>} keeps its descriptor:
 * it takes the two arrays (one {@code long} per register web or i32 slot, one ref per ref
 * register) from the call environment, which keeps them per function (zeroed and empty on
 * entry; no allocation per call), stores the arguments and dispatches regions until one
 * returns -1. A trap in a
 * region records {@code function+pc} and releases the region's refs as the unsplit method does;
 * the dispatcher then releases the refs left in the array. A return leaves the refs still in
 * registers unreleased, as the unsplit method's return does.
 */
final class MethodSplitter {
    /** HotSpot's {@code HugeMethodLimit}: a method of more bytes is not JIT-compiled by default. */
    static final int HUGE_METHOD_LIMIT = 8000;
    /**
     * The method size the compiler keeps generated methods under: well below {@link #HUGE_METHOD_LIMIT},
     * because C1's profiling compile (tier 3) of generated code runs out of virtual registers on
     * methods of this density from about 5,600 bytes (measured on the models' kernels: 5,604 and
     * 7,793 bytes failed, 4,867 compiled), and a method HotSpot happened to compile at tier 2 first
     * then never reaches C2 (it stays C1 code for the life of the process: one JVM in three ran a
     * model 50 % slower so).
     */
    static final int C1_METHOD_LIMIT = 4000;
    /** Local of a region method: the registers' bits ({@code long[]}). */
    static final int BITS = 1;
    /** Local of a region method: the ref registers ({@code RefObject[]}). */
    static final int REFS = 2;
    /** Local of a region method: the instruction index to start at. */
    static final int ENTRY = 3;
    static final int REGION_FIRST_LOCAL = 4;
    static final MethodTypeDesc REGION_TYPE = MethodTypeDesc.of(CD_int, CD_ENV, CD_long.arrayType(), CD_REF_ARRAY,
            CD_int);
    /** Region size the first plan aims at, in estimated bytes of bytecode, for methods kept under {@code methodLimit}. */
    static int firstBudget(int methodLimit) {
        return methodLimit * 13 / 16;
    }

    /**
     * Instructions [from, to) of a split function; {@code entries} the instruction indices
     * control can enter it at (its first instruction and the blocks branched to from other
     * regions); {@code blockIndex} maps every block's pc in the function to its instruction index.
     */
    record Region(int from, int to, int[] entries, Map<Integer, Integer> blockIndex) {
    }

    private MethodSplitter() {
    }

    static String regionName(int f, int k) {
        return "f" + f + "_" + k;
    }

    /** The block pcs {@code i} may branch to. */
    static List<Integer> targets(Insn i) {
        List<Integer> out = new ArrayList<>();
        switch (i.opcode()) {
            case CoreOps.BRANCH -> out.add((Integer) i.ops().get(0));
            case CoreOps.COND_BRANCH -> {
                out.add((Integer) i.ops().get(1));
                out.add((Integer) i.ops().get(3));
            }
            case CoreOps.BRANCH_TABLE -> {
                out.add((Integer) i.ops().get(1));
                int size = (Integer) i.ops().get(3);
                for (int k = 0; k < size; k++) {
                    out.add((Integer) i.ops().get(4 + 2 * k));
                }
            }
            default -> {
            }
        }
        return out;
    }

    static Map<Integer, Integer> blockIndex(List<Insn> insns) {
        Map<Integer, Integer> out = new HashMap<>();
        for (int k = 0; k < insns.size(); k++) {
            if (insns.get(k).opcode() == CoreOps.BLOCK) {
                out.put(insns.get(k).pc(), k);
            }
        }
        return out;
    }

    /**
     * The bytes of bytecode each instruction of function {@code f} takes, measured by emitting it
     * in pieces (with a line number marking each instruction) into a class that is then parsed.
     */
    static int[] measure(Compiler c, int f, RegisterWebs webs) {
        List<Insn> insns = c.code.get(f);
        int n = insns.size();
        Map<Integer, Integer> blocks = blockIndex(insns);
        for (int chunk = 2048; ; chunk = Math.max(1, chunk / 2)) {
            int size = chunk;
            byte[] bytes;
            try {
                bytes = c.classFile().build(ClassDesc.of(Compiler.class.getPackageName() + ".Measure"), clb -> {
                    for (int from = 0, k = 0; from < n; from += size, k++) {
                        Region r = new Region(from, Math.min(n, from + size), new int[] {from}, blocks);
                        clb.withMethodBody(regionName(f, k), REGION_TYPE, ClassFile.ACC_STATIC,
                                cb -> new FunctionEmitter(c, f, cb, webs, r, true).emit());
                    }
                });
            } catch (IllegalArgumentException e) {
                if (chunk == 1) {
                    throw e;
                }
                continue;
            }
            int[] sizes = new int[n];
            int from = 0;
            for (MethodModel mm : ClassFile.of().parse(bytes).methods()) {
                int to = Math.min(n, from + size);
                int[] pcs = new int[to - from + 1];
                java.util.Arrays.fill(pcs, -1);
                int base = from;
                mm.findAttribute(Attributes.code()).ifPresent(code -> code.findAttribute(Attributes.lineNumberTable())
                        .ifPresent(t -> {
                            for (LineNumberInfo li : t.lineNumbers()) {
                                int index = (li.lineNumber() - base) & 0xFFFF;
                                if (index < pcs.length) {
                                    pcs[index] = li.startPc();
                                }
                            }
                        }));
                // An instruction without code (a block marker) may share its pc with the next one.
                int next = pcs[pcs.length - 1];
                for (int k = pcs.length - 2; k >= 0; k--) {
                    if (pcs[k] >= 0 && next >= 0) {
                        sizes[from + k] = Math.max(0, next - pcs[k]);
                        next = pcs[k];
                    }
                }
                from = to;
            }
            return sizes;
        }
    }

    /**
     * Cuts function {@code f} into regions whose estimated method size stays within
     * {@code budget} bytes, given each instruction's measured {@code sizes}.
     */
    static List<Region> plan(Compiler c, int f, RegisterWebs webs, int[] sizes, int budget) {
        List<Insn> insns = c.code.get(f);
        int n = insns.size();
        Map<Integer, Integer> blocks = blockIndex(insns);
        // Loop depth of each cut point (a cut before instruction k): back edges spanning it.
        int[] depth = new int[n + 2];
        for (int k = 0; k < n; k++) {
            for (int t : targets(insns.get(k))) {
                Integer y = blocks.get(t);
                if (y != null && y <= k) { // a back edge k -> y spans the cuts y+1 .. k
                    depth[y + 1]++;
                    depth[k + 1]--;
                }
            }
        }
        for (int c2 = 1; c2 <= n; c2++) {
            depth[c2] += depth[c2 - 1];
        }
        List<Integer> cuts = new ArrayList<>();
        cuts.add(0);
        int a = 0;
        while (a < n) {
            BitSet used = new BitSet();
            BitSet written = new BitSet();
            BitSet refs = new BitSet();
            long body = 0;
            int k = a;
            while (k < n) {
                Insn i = insns.get(k);
                BitSet u = (BitSet) used.clone();
                BitSet w = (BitSet) written.clone();
                BitSet r = (BitSet) refs.clone();
                touch(i, webs, u, w);
                r.or(i.touchRef());
                // The instructions, the entry switch and exits, loading what the region touches,
                // storing what it writes, moving and releasing its refs.
                long estimate = body + sizes[k] + 8L * (targets(i).size() + 1) + 60 + 9L * u.cardinality()
                        + 9L * w.cardinality() + 30L * r.cardinality();
                if (k > a && estimate > budget) {
                    break;
                }
                used = u;
                written = w;
                refs = r;
                body += sizes[k] + 8L * targets(i).size();
                k++;
            }
            int cut = k;
            if (k < n) {
                // Prefer the shallowest cut in the back half of the region, the latest among equals.
                int best = k;
                for (int c2 = k; c2 > a + (k - a) / 2; c2--) {
                    int score = depth[c2] * 2 + (insns.get(c2).opcode() == CoreOps.BLOCK ? 0 : 1);
                    int bestScore = depth[best] * 2 + (insns.get(best).opcode() == CoreOps.BLOCK ? 0 : 1);
                    if (score < bestScore) {
                        best = c2;
                    }
                }
                cut = best;
            }
            cuts.add(cut);
            a = cut;
        }
        // Entries: each region's start and the blocks other regions branch to.
        int regions = cuts.size() - 1;
        int[] regionOf = new int[n];
        for (int r = 0; r < regions; r++) {
            for (int k = cuts.get(r); k < cuts.get(r + 1); k++) {
                regionOf[k] = r;
            }
        }
        List<java.util.TreeSet<Integer>> entries = new ArrayList<>();
        for (int r = 0; r < regions; r++) {
            java.util.TreeSet<Integer> e = new java.util.TreeSet<>();
            e.add(cuts.get(r));
            entries.add(e);
        }
        for (int k = 0; k < n; k++) {
            for (int t : targets(insns.get(k))) {
                Integer y = blocks.get(t);
                if (y != null && regionOf[y] != regionOf[k]) {
                    entries.get(regionOf[y]).add(y);
                }
            }
        }
        List<Region> out = new ArrayList<>();
        for (int r = 0; r < regions; r++) {
            out.add(new Region(cuts.get(r), cuts.get(r + 1),
                    entries.get(r).stream().mapToInt(Integer::intValue).toArray(), blocks));
        }
        return out;
    }

    private static void touch(Insn i, RegisterWebs webs, BitSet used, BitSet written) {
        if (webs == null) {
            used.or(i.touch32());
            written.or(i.touch32());
            return;
        }
        for (Compiler.Acc[] list : i.acc()) {
            for (Compiler.Acc x : list == null ? new Compiler.Acc[0] : list) {
                if (x != null) {
                    used.set(webs.webOf[x.id()]);
                    if (x.write()) {
                        written.set(webs.webOf[x.id()]);
                    }
                }
            }
        }
    }

    /**
     * Method {@code f<N>} of a split function: the register arrays, the arguments, then the
     * regions until one returns -1, then the results from the call environment.
     */
    static void dispatcher(Compiler c, int f, RegisterWebs webs, List<Region> regions, CodeBuilder cb) {
        BytecodeModule m = c.m;
        String args = m.fnCconv[f].arguments().types();
        int[] argSlot = MethodFrame.argumentLocals(args);
        int slot = argSlot[args.length()];
        int bits = slot++;
        int refs = slot++;
        int next = slot++;
        int thrown = slot;
        // The environment's arrays for f (no allocation per call): zeroed bits, empty refs.
        cb.aload(0).loadConstant(f).loadConstant(webs == null ? m.fnI32[f] : webs.count)
                .invokevirtual(CD_ENV, "splitBits", MethodTypeDesc.of(CD_long.arrayType(), CD_int, CD_int)).astore(bits);
        cb.aload(0).loadConstant(f).loadConstant(m.fnRef[f])
                .invokevirtual(CD_ENV, "splitRefs", MethodTypeDesc.of(CD_REF_ARRAY, CD_int, CD_int)).astore(refs);
        if (webs != null) {
            for (int w = 0; w < webs.count; w++) {
                int a = webs.arg[w];
                if (a >= 0) {
                    cb.aload(bits).loadConstant(w);
                    if (args.charAt(a) == 'I' || args.charAt(a) == 'F') {
                        cb.lload(argSlot[a]);
                    } else {
                        cb.iload(argSlot[a]).i2l();
                    }
                    cb.lastore();
                }
            }
        }
        int ri = 0;
        int rr = 0;
        for (int k = 0; k < args.length(); k++) {
            switch (args.charAt(k)) {
                case 'I', 'F' -> {
                    ri += ri & 1;
                    if (webs == null) {
                        cb.aload(bits).loadConstant(ri).lload(argSlot[k]).l2i().i2l().lastore();
                        cb.aload(bits).loadConstant(ri + 1).lload(argSlot[k]).bipush(32).lushr().l2i().i2l()
                                .lastore();
                    }
                    ri += 2;
                }
                case 'r' -> cb.aload(refs).loadConstant(rr++).aload(argSlot[k]).aastore();
                default -> {
                    if (webs == null) {
                        cb.aload(bits).loadConstant(ri).iload(argSlot[k]).i2l().lastore();
                    }
                    ri++;
                }
            }
        }
        cb.iconst_0().istore(next);
        Label loop = cb.newLabel();
        Label done = cb.newLabel();
        Label end = cb.newLabel();
        Label handler = cb.newLabel();
        cb.labelBinding(loop);
        List<SwitchCase> cases = new ArrayList<>();
        List<Runnable> bodies = new ArrayList<>();
        for (int r = 0; r < regions.size(); r++) {
            String name = regionName(f, r);
            for (int e : regions.get(r).entries()) {
                Label l = cb.newLabel();
                cases.add(SwitchCase.of(e, l));
                bodies.add(() -> {
                    cb.labelBinding(l);
                    cb.aload(0).aload(bits).aload(refs).loadConstant(e);
                    cb.invokestatic(c.self, name, REGION_TYPE);
                    cb.istore(next).goto_(loop);
                });
            }
        }
        cases.sort(java.util.Comparator.comparingInt(SwitchCase::caseValue));
        cb.iload(next);
        cb.lookupswitch(done, cases);
        bodies.forEach(Runnable::run);
        cb.labelBinding(done);
        cb.iconst_0().pop();
        cb.labelBinding(end);
        cb.aload(refs).invokestatic(CD_SUPPORT, "clearRefs", MethodTypeDesc.of(CD_void, CD_REF_ARRAY));
        byte[] kinds = m.fnResultKinds[f];
        if (kinds.length == 1) {
            switch (kinds[0]) {
                case BytecodeModule.KIND_32 -> cb.aload(0).getfield(CD_ENV, "rb", CD_long.arrayType()).iconst_0()
                        .laload().l2i().ireturn();
                case BytecodeModule.KIND_64 -> cb.aload(0).getfield(CD_ENV, "rb", CD_long.arrayType()).iconst_0()
                        .laload().lreturn();
                default -> {
                    cb.aload(0).getfield(CD_ENV, "rr", CD_REF_ARRAY).iconst_0().aaload();
                    cb.aload(0).getfield(CD_ENV, "rr", CD_REF_ARRAY).iconst_0().aconst_null().aastore();
                    cb.areturn();
                }
            }
        } else {
            cb.return_();
        }
        cb.labelBinding(handler);
        cb.astore(thrown).aload(refs);
        cb.invokestatic(CD_SUPPORT, "releaseAll", MethodTypeDesc.of(CD_void, CD_REF_ARRAY));
        cb.aload(thrown).athrow();
        cb.exceptionCatchAll(loop, end, handler);
    }
}
