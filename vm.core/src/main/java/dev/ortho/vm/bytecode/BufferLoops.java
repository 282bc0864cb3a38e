package dev.ortho.vm.bytecode;

import dev.ortho.vm.bytecode.Compiler.Insn;
import dev.ortho.vm.internal.isa.CoreOps;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code vm.buffer} registers that stay the same throughout a loop, for the instructions one
 * JVM method emits ({@link FunctionEmitter}): for such a register the method keeps the buffer's
 * memory segment and its readable and writable byte counts in JVM locals (a "cache"), loaded
 * each time control enters the loop from outside, so the element accesses inside the loop check
 * the index against a loop-invariant local and read or write a loop-invariant segment, which C2
 * hoists out of the loop (with everything the segment access checks) and can unroll and
 * vectorize. The cache never throws: a register holding null, another ref type or a released
 * buffer caches zero bytes, so every access through it takes the checked path, which raises the
 * interpreter's error at the instruction that makes it.
 *
 * <p>Loops are the natural loops of the method's block graph (a back edge goes to a block that
 * dominates its source; the loop is its header and every block that reaches the back edge without
 * passing the header), entered from the function's or region's entries. Only the header can be
 * entered from outside the loop, so loading the cache on every edge into the header from outside
 * makes it valid everywhere in the loop, as long as no instruction in the loop writes the
 * register: an op's ref result, a branch operand moved into it or out of it, a call result, a
 * ref operand passed with the move bit. A register accessed in nested loops gets the cache of the
 * outermost loop it is invariant in.
 */
final class BufferLoops {
    /** At most this many caches per method (five JVM local slots each); further accesses stay checked. */
    static final int MAX_CACHES = 64;

    /** One cached buffer register: the ref register (without type/move bits) and its loop's header block. */
    record Cache(int ref, int header) {
    }

    /** No loop-invariant buffer access: what a method without loops or buffer ops gets. */
    static final BufferLoops NONE = new BufferLoops();

    final List<Cache> caches = new ArrayList<>();
    /** Per instruction index of a buffer load or store: the index of its cache in {@link #caches}. */
    private final Map<Integer, Integer> byInsn = new HashMap<>();
    /** Per header (the instruction index of its block marker): the caches its loop loads on entry. */
    private final Map<Integer, List<Integer>> byHeader = new HashMap<>();
    /** Per header with caches: the blocks (start instruction indices) of its loop. */
    private final Map<Integer, BitSet> loopOf = new HashMap<>();

    private BufferLoops() {
    }

    /**
     * Analyses instructions [{@code from}, {@code to}) of {@code insns}, entered at {@code from}
     * and at the instruction indices {@code entries}; {@code blockIndex} maps block pcs to
     * instruction indices.
     */
    static BufferLoops of(BytecodeModule m, List<Insn> insns, int from, int to, int[] entries,
                          Map<Integer, Integer> blockIndex) {
        boolean any = false;
        for (int k = from; k < to && !any; k++) {
            any = bufferRef(m, insns.get(k)) >= 0;
        }
        if (!any) {
            return NONE;
        }
        BufferLoops out = new BufferLoops();
        out.analyse(m, insns, from, to, entries, blockIndex);
        return out;
    }

    /** The cache index of buffer access {@code index}, or -1. */
    int cacheOf(int index) {
        return byInsn.getOrDefault(index, -1);
    }

    /** The caches to load when control enters the loop headed by the block at {@code index} from outside. */
    List<Integer> cachesAt(int index) {
        return byHeader.getOrDefault(index, List.of());
    }

    /** True if the block starting at {@code block} is in the loop headed at {@code header}. */
    boolean inLoop(int header, int block) {
        BitSet b = loopOf.get(header);
        return b != null && b.get(block);
    }

    /**
     * The ref register (without bits) a {@code vm.buffer} element load or store reads its buffer
     * from, or -1 if {@code i} is no such op.
     */
    static int bufferRef(BytecodeModule m, Insn i) {
        int op = i.opcode();
        boolean access;
        if (op >= 0xE0) {
            FloatOpEmitter.FOp f = FloatOpEmitter.floatOp(m, i);
            access = f == FloatOpEmitter.FOp.LOAD || f == FloatOpEmitter.FOp.STORE;
        } else {
            access = switch (op) {
                case CoreOps.BUFFER_LOAD_I8_U, CoreOps.BUFFER_LOAD_I8_S, CoreOps.BUFFER_LOAD_I16_U,
                     CoreOps.BUFFER_LOAD_I16_S, CoreOps.BUFFER_LOAD_I32, CoreOps.BUFFER_LOAD_I64,
                     CoreOps.BUFFER_STORE_I8, CoreOps.BUFFER_STORE_I16, CoreOps.BUFFER_STORE_I32,
                     CoreOps.BUFFER_STORE_I64 -> true;
                default -> false;
            };
        }
        if (!access) {
            return -1;
        }
        // The buffer is the op's one ref operand.
        return i.touchRef().nextSetBit(0);
    }

    private void analyse(BytecodeModule m, List<Insn> insns, int from, int to, int[] entries,
                         Map<Integer, Integer> blockIndex) {
        // Blocks: the instruction indices where one starts ([from] even if it is no block marker).
        List<Integer> starts = new ArrayList<>();
        Map<Integer, Integer> ordinal = new HashMap<>();
        for (int k = from; k < to; k++) {
            if (k == from || insns.get(k).opcode() == CoreOps.BLOCK) {
                ordinal.put(k, starts.size());
                starts.add(k);
            }
        }
        int n = starts.size();
        int[] end = new int[n];
        List<List<Integer>> succ = new ArrayList<>();
        List<List<Integer>> pred = new ArrayList<>();
        for (int b = 0; b < n; b++) {
            succ.add(new ArrayList<>());
            pred.add(new ArrayList<>());
        }
        for (int b = 0; b < n; b++) {
            end[b] = b + 1 < n ? starts.get(b + 1) : to;
            Insn last = insns.get(end[b] - 1);
            List<Integer> targets = MethodSplitter.targets(last);
            boolean jumps = last.opcode() == CoreOps.BRANCH || last.opcode() == CoreOps.COND_BRANCH
                    || last.opcode() == CoreOps.BRANCH_TABLE || last.opcode() == CoreOps.RETURN;
            if (!jumps && b + 1 < n) {
                targets = new ArrayList<>(targets);
                targets.add(insns.get(starts.get(b + 1)).pc()); // falls through (vm.fail with an OK status)
            }
            for (int t : targets) {
                Integer y = blockIndex.get(t);
                Integer s = y == null ? null : ordinal.get(y);
                if (s != null && !succ.get(b).contains(s)) {
                    succ.get(b).add(s);
                    pred.get(s).add(b);
                }
            }
        }
        // Dominators from the entries (each entry's dominators are itself alone).
        BitSet entry = new BitSet();
        entry.set(0);
        for (int e : entries) {
            Integer s = ordinal.get(e);
            if (s != null) {
                entry.set(s);
            }
        }
        BitSet reachable = new BitSet();
        ArrayDeque<Integer> work = new ArrayDeque<>();
        entry.stream().forEach(work::add);
        while (!work.isEmpty()) {
            int b = work.poll();
            if (!reachable.get(b)) {
                reachable.set(b);
                work.addAll(succ.get(b));
            }
        }
        BitSet[] dom = new BitSet[n];
        for (int b = 0; b < n; b++) {
            dom[b] = new BitSet();
            if (entry.get(b)) {
                dom[b].set(b);
            } else {
                dom[b].or(reachable);
            }
        }
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int b = reachable.nextSetBit(0); b >= 0; b = reachable.nextSetBit(b + 1)) {
                if (entry.get(b)) {
                    continue;
                }
                BitSet d = (BitSet) reachable.clone();
                for (int p : pred.get(b)) {
                    if (reachable.get(p)) {
                        d.and(dom[p]);
                    }
                }
                d.set(b);
                if (!d.equals(dom[b])) {
                    dom[b] = d;
                    changed = true;
                }
            }
        }
        // Natural loops, one per header (the union of its back edges' loops), and what they write.
        Map<Integer, BitSet> loops = new HashMap<>();
        for (int u = reachable.nextSetBit(0); u >= 0; u = reachable.nextSetBit(u + 1)) {
            for (int h : succ.get(u)) {
                if (dom[u].get(h)) {
                    BitSet body = loops.computeIfAbsent(h, x -> {
                        BitSet s = new BitSet();
                        s.set(x);
                        return s;
                    });
                    ArrayDeque<Integer> back = new ArrayDeque<>();
                    back.add(u);
                    while (!back.isEmpty()) {
                        int x = back.poll();
                        if (reachable.get(x) && !body.get(x)) {
                            body.set(x);
                            back.addAll(pred.get(x));
                        }
                    }
                }
            }
        }
        if (loops.isEmpty()) {
            return;
        }
        Map<Integer, BitSet> writes = new HashMap<>();
        for (Map.Entry<Integer, BitSet> e : loops.entrySet()) {
            BitSet w = new BitSet();
            BitSet body = e.getValue();
            for (int b = body.nextSetBit(0); b >= 0; b = body.nextSetBit(b + 1)) {
                for (int k = starts.get(b); k < end[b]; k++) {
                    w.or(insns.get(k).writeRef());
                }
            }
            writes.put(e.getKey(), w);
        }
        // Each access gets the cache of the largest loop around it that does not write its register.
        Map<Long, Integer> made = new HashMap<>();
        for (int b = reachable.nextSetBit(0); b >= 0; b = reachable.nextSetBit(b + 1)) {
            for (int k = starts.get(b); k < end[b]; k++) {
                int r = bufferRef(m, insns.get(k));
                if (r < 0) {
                    continue;
                }
                int best = -1;
                for (Map.Entry<Integer, BitSet> e : loops.entrySet()) {
                    int h = e.getKey();
                    if (e.getValue().get(b) && !writes.get(h).get(r)
                            && (best < 0 || e.getValue().cardinality() > loops.get(best).cardinality())) {
                        best = h;
                    }
                }
                if (best < 0) {
                    continue;
                }
                long key = ((long) best << 32) | r;
                Integer c = made.get(key);
                if (c == null) {
                    if (caches.size() == MAX_CACHES) {
                        continue;
                    }
                    c = caches.size();
                    int header = starts.get(best);
                    caches.add(new Cache(r, header));
                    made.put(key, c);
                    byHeader.computeIfAbsent(header, x -> new ArrayList<>()).add(c);
                    BitSet blocks = new BitSet();
                    BitSet body = loops.get(best);
                    for (int x = body.nextSetBit(0); x >= 0; x = body.nextSetBit(x + 1)) {
                        blocks.set(starts.get(x));
                    }
                    loopOf.put(header, blocks);
                }
                byInsn.put(k, c);
            }
        }
    }
}
