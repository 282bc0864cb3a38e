package dev.ortho.vm.bytecode;

import dev.ortho.vm.bytecode.Compiler.Acc;
import dev.ortho.vm.bytecode.Compiler.Insn;
import dev.ortho.vm.internal.isa.CoreOps;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits the i32 register bank of one function into webs (the classic def-use webs of register
 * renaming), so that the compiler can give each value its own JVM local of the type the code
 * proves: {@code int}, {@code float}, {@code long} or {@code double}. IREE's register allocator
 * reuses a register for values of different types ({@code %i2} as an i32, later {@code %i2:3} as
 * an i64), which per-register typing could not follow.
 *
 * <p>Reaching definitions run over the function's blocks; branch operand lists are copies on
 * their edge, run in order as the interpreter runs them. Every use joins the definitions that
 * reach it into one web. A web is typed if all its definitions and uses agree on the register
 * and the width (64-bit values are aligned register pairs; an unwritten register reads as zero):
 * then it is {@code long}/{@code double} or {@code int}/{@code float}, floating point only when no
 * integer op touches it. If any web mixes widths or registers, {@link #valid} is false and the
 * compiler keeps the interpreter's slot representation for that function.
 */
final class RegisterWebs {
    /** True if every web is typed; the other fields are meaningful only then. */
    final boolean valid;
    /** Why not {@link #valid}. */
    final String why;
    /** Per access id: its web. */
    final int[] webOf;
    /** Per web: {@code i f I F}. */
    final char[] repr;
    /** Per web: the argument position (in the cconv) that initializes it, or -1 (zero). */
    final int[] arg;
    final int count;

    private final List<Insn> insns;
    private final int slots;
    private final int nAcc;
    private final BitSet[] defsOfSlot;
    private final Acc[] byId;
    private final int[] parent;
    private final int[] entryArg;
    private final boolean[] entryWide;

    RegisterWebs(List<Insn> insns, int slots, int nAcc, String argTypes) {
        this.insns = insns;
        this.slots = slots;
        this.nAcc = nAcc;
        this.byId = new Acc[nAcc];
        this.defsOfSlot = new BitSet[slots + 1];
        for (int k = 0; k <= slots; k++) {
            defsOfSlot[k] = new BitSet();
        }
        this.entryArg = new int[slots];
        this.entryWide = new boolean[slots];
        java.util.Arrays.fill(entryArg, -1);
        for (Insn i : insns) {
            for (Acc[] list : i.acc()) {
                if (list != null) {
                    for (Acc a : list) {
                        if (a != null) {
                            byId[a.id()] = a;
                            if (a.write()) {
                                def(a.id(), a.slot(), a.wide());
                            }
                        }
                    }
                }
            }
        }
        int ri = 0;
        for (int k = 0; k < argTypes.length(); k++) {
            char t = argTypes.charAt(k);
            if (t == 'I' || t == 'F') {
                ri += ri & 1;
                entryArg[ri] = k;
                entryWide[ri] = true;
                ri += 2;
            } else if (t != 'r') {
                entryArg[ri++] = k;
            }
        }
        for (int k = 0; k < slots; k++) {
            if (k > 0 && entryWide[k - 1]) {
                continue;
            }
            def(nAcc + k, k, entryWide[k]);
        }
        this.parent = new int[nAcc + slots];
        for (int k = 0; k < parent.length; k++) {
            parent[k] = k;
        }
        String problem = solve();
        int[] web = new int[nAcc];
        java.util.Arrays.fill(web, -1);
        Map<Integer, Integer> ids = new HashMap<>();
        char[] reprs = new char[nAcc + slots];
        int[] args = new int[nAcc + slots];
        int[] shapeSlot = new int[nAcc + slots];
        int[] shapeWide = new int[nAcc + slots];
        int n = 0;
        if (problem == null) {
            for (int a = 0; a < nAcc && problem == null; a++) {
                Acc acc = byId[a];
                if (acc == null) {
                    continue;
                }
                int root = find(a);
                Integer w = ids.get(root);
                if (w == null) {
                    w = n++;
                    ids.put(root, w);
                    shapeSlot[w] = acc.slot();
                    shapeWide[w] = acc.wide() ? 1 : 0;
                    reprs[w] = 'a';
                    args[w] = -1;
                }
                web[a] = w;
                if (acc.slot() != shapeSlot[w] || acc.wide() != (shapeWide[w] == 1)) {
                    problem = "register " + acc.slot() + " holds values of different widths";
                }
                reprs[w] = join(reprs[w], acc.type());
            }
            for (int k = 0; k < slots && problem == null; k++) {
                if (k > 0 && entryWide[k - 1]) {
                    continue;
                }
                Integer w = ids.get(find(nAcc + k));
                if (w == null) {
                    continue;
                }
                boolean wideWeb = shapeWide[w] == 1;
                int s = shapeSlot[w];
                if (entryArg[k] >= 0) {
                    if (s != k || entryWide[k] != wideWeb) {
                        problem = "argument register " + k + " is read with another width";
                    } else {
                        args[w] = entryArg[k];
                    }
                } else if (!(s == k || wideWeb && s + 1 == k)) {
                    problem = "register " + k + " is read with another width";
                }
            }
        }
        this.valid = problem == null;
        this.why = problem;
        this.webOf = web;
        this.count = n;
        this.repr = new char[n];
        this.arg = java.util.Arrays.copyOf(args, n);
        for (int w = 0; w < n; w++) {
            boolean wide = shapeWide[w] == 1;
            repr[w] = reprs[w] == 'F' ? (wide ? 'F' : 'f') : (wide ? 'I' : 'i');
        }
    }

    /** Integer wins over floating point; untyped moves are neutral. */
    private static char join(char a, char b) {
        if (b == 'a') {
            return a;
        }
        if (b == 'i' || b == 'I') {
            return 'i';
        }
        return a == 'a' ? 'F' : a;
    }

    private void def(int id, int slot, boolean wide) {
        defsOfSlot[slot].set(id);
        if (wide) {
            defsOfSlot[slot + 1].set(id);
        }
    }

    private int find(int x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }

    private void union(int a, int b) {
        int ra = find(a);
        int rb = find(b);
        if (ra != rb) {
            parent[ra] = rb;
        }
    }

    /** Reaching definitions to a fixpoint, then the unions of every use; null or the reason it failed. */
    private String solve() {
        Map<Integer, Integer> blockAt = new HashMap<>();
        List<int[]> blocks = new java.util.ArrayList<>();
        int start = 0;
        for (int k = 0; k < insns.size(); k++) {
            if (insns.get(k).opcode() == CoreOps.BLOCK) {
                if (k > start) {
                    blocks.add(new int[] {start, k});
                }
                start = k;
                blockAt.put(insns.get(k).pc(), blocks.size());
            }
        }
        blocks.add(new int[] {start, insns.size()});
        BitSet[] in = new BitSet[blocks.size()];
        for (int b = 0; b < in.length; b++) {
            in[b] = new BitSet();
        }
        for (int k = 0; k < slots; k++) {
            if (k == 0 || !entryWide[k - 1]) {
                in[0].set(nAcc + k);
            }
        }
        ArrayDeque<Integer> work = new ArrayDeque<>();
        boolean[] queued = new boolean[blocks.size()];
        work.add(0);
        queued[0] = true;
        while (!work.isEmpty()) {
            int b = work.poll();
            queued[b] = false;
            for (int t : walk(blocks, blockAt, b, in[b], in, false)) {
                if (!queued[t]) {
                    queued[t] = true;
                    work.add(t);
                }
            }
        }
        for (int b = 0; b < blocks.size(); b++) {
            walk(blocks, blockAt, b, in[b], in, true);
        }
        return null;
    }

    /** Runs block {@code b}; returns the blocks whose entry state grew (or unions the uses when {@code record}). */
    private List<Integer> walk(List<int[]> blocks, Map<Integer, Integer> blockAt, int b, BitSet entry, BitSet[] in,
                               boolean record) {
        List<Integer> changed = new java.util.ArrayList<>();
        BitSet state = (BitSet) entry.clone();
        int[] range = blocks.get(b);
        boolean terminated = false;
        for (int k = range[0]; k < range[1]; k++) {
            Insn i = insns.get(k);
            switch (i.opcode()) {
                case CoreOps.BLOCK -> {
                }
                case CoreOps.BRANCH -> {
                    edge(state, (Integer) i.ops().get(0), i.acc()[1], blockAt, in, changed, record);
                    terminated = true;
                }
                case CoreOps.COND_BRANCH -> {
                    use(state, i.a(0), record);
                    edge(state, (Integer) i.ops().get(1), i.acc()[2], blockAt, in, changed, record);
                    edge(state, (Integer) i.ops().get(3), i.acc()[4], blockAt, in, changed, record);
                    terminated = true;
                }
                case CoreOps.BRANCH_TABLE -> {
                    use(state, i.a(0), record);
                    edge(state, (Integer) i.ops().get(1), i.acc()[2], blockAt, in, changed, record);
                    int size = (Integer) i.ops().get(3);
                    for (int c = 0; c < size; c++) {
                        edge(state, (Integer) i.ops().get(4 + 2 * c), i.acc()[5 + 2 * c], blockAt, in, changed,
                                record);
                    }
                    terminated = true;
                }
                default -> {
                    for (Acc[] list : i.acc()) {
                        if (list != null) {
                            for (Acc a : list) {
                                if (a != null && !a.write()) {
                                    use(state, a, record);
                                }
                            }
                        }
                    }
                    for (Acc[] list : i.acc()) {
                        if (list != null) {
                            for (Acc a : list) {
                                if (a != null && a.write()) {
                                    kill(state, a);
                                }
                            }
                        }
                    }
                    terminated = i.opcode() == CoreOps.RETURN;
                }
            }
        }
        if (!terminated && b + 1 < blocks.size()) {
            merge(state, b + 1, in, changed);
        }
        return changed;
    }

    private void edge(BitSet state, int targetPc, Acc[] remap, Map<Integer, Integer> blockAt, BitSet[] in,
                      List<Integer> changed, boolean record) {
        BitSet s = (BitSet) state.clone();
        for (int k = 0; k < remap.length; k += 2) {
            if (remap[k] != null) {
                use(s, remap[k], record);
                kill(s, remap[k + 1]);
            }
        }
        Integer t = blockAt.get(targetPc);
        if (t != null) {
            merge(s, t, in, changed);
        }
    }

    private static void merge(BitSet s, int t, BitSet[] in, List<Integer> changed) {
        int before = in[t].cardinality();
        in[t].or(s);
        if (in[t].cardinality() != before) {
            changed.add(t);
        }
    }

    private void kill(BitSet state, Acc a) {
        state.andNot(defsOfSlot[a.slot()]);
        if (a.wide()) {
            state.andNot(defsOfSlot[a.slot() + 1]);
        }
        state.set(a.id());
    }

    private void use(BitSet state, Acc a, boolean record) {
        if (!record) {
            return;
        }
        BitSet reach = (BitSet) defsOfSlot[a.slot()].clone();
        if (a.wide()) {
            reach.or(defsOfSlot[a.slot() + 1]);
        }
        reach.and(state);
        for (int d = reach.nextSetBit(0); d >= 0; d = reach.nextSetBit(d + 1)) {
            union(a.id(), d);
        }
    }
}
