package dev.ortho.vm.bytecode;

import static dev.ortho.base.MessageText.printable;
import static dev.ortho.vm.bytecode.Interpreter.*;

import dev.ortho.vm.trace.VmTracing;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Call;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.Frame;
import dev.ortho.vm.Function;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.Stack;
import dev.ortho.vm.internal.isa.CoreOps;
import dev.ortho.vm.trace.ImportCallEvent;

/**
 * Calls and returns of {@link Interpreter}: internal calls push a frame and map arguments by the
 * callee's calling convention, imports marshal into the frame's reusable outgoing {@link Call}
 * (variadic segments included) and may defer, returns map results into the caller's registers
 * or the external call's result buffer. Stateless.
 */
final class InterpreterCalls {
    private InterpreterCalls() {
    }


    /** Executes a call op at {@code op}; returns the next pc, RELOAD (entered a callee) or DEFER. */
    static int call(BytecodeModule m, BytecodeModule.State st, Stack stack, Frame frame, int fn, byte[] c,
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
            byte[] kinds = m.fnArgKinds[ordinal];
            int n = Math.min(u16(c, args), kinds.length);
            int ri = 0;
            int rr = 0;
            for (int i = 0; i < n; i++) {
                int reg = u16(c, args + 2 + 2 * i);
                byte kind = kinds[i];
                if (kind == BytecodeModule.KIND_32) {
                    cr[ri++] = r[reg];
                } else if (kind == BytecodeModule.KIND_64) {
                    ri += ri & 1;
                    wl(cr, ri, rl(r, reg));
                    ri += 2;
                } else {
                    retainOrMove((reg & MOVE_BIT) != 0, refs, reg & REF_MASK, crefs, rr++);
                }
            }
            return RELOAD;
        }
        Function f = st.imports[ordinal & 0x7FFF_FFFF];
        if (f == null) {
            Function decl = m.imports().get(ordinal & 0x7FFF_FFFF);
            throw new StatusException(StatusCode.NOT_FOUND, "optional import `" + printable(decl.name()) + "` (ordinal "
                    + (ordinal & 0x7FFF_FFFF) + ") not resolved");
        }
        Call out = frame.outgoing().prepareToFill(f); // marshalImportArguments writes every argument slot
        int io = ordinal & 0x7FFF_FFFF;
        ImportPlan plan = st.importPlans[io];
        String types = f.cconv().arguments().types();
        if (plan == null || plan.types != types) { // first call, or the import was resolved anew
            plan = ImportPlan.of(types);
            st.importPlans[io] = plan; // immutable: a racing invocation may build its own
        }
        if (!plan.usable || !marshalPlanned(plan, c, segments, args, r, refs, out.arguments())) {
            marshalImportArguments(types, c, segments, args, r, refs, out.arguments());
        }
        CallOutcome outcome;
        try {
            outcome = beginImport(m.name(), stack, out);
        } catch (StatusException e) {
            throw e.annotate("while calling import");
        }
        if (outcome == CallOutcome.DEFERRED) {
            r[m.fnI32[fn] + 1] = 1;
            frame.setPc(op - base);
            return DEFER;
        }
        return finishImportAt(frame, c, results, resume >= 0 ? resume : after, base);
    }

    /**
     * Begins the prepared import call {@code out} from module {@code caller}, recorded as an
     * {@link ImportCallEvent} while tracing (it ends when the callee returns, fails or yields).
     * Shared by the interpreter and compiled code, so both record and clean up alike.
     *
     * @throws StatusException what the callee threw, unannotated, after releasing the argument refs
     */
    static CallOutcome beginImport(String caller, Stack stack, Call out) {
        Function f = out.function();
        ImportCallEvent event = VmTracing.AVAILABLE // null if off
                ? ImportCallEvent.start(caller, f.module().name(), f.name()) : null;
        try {
            CallOutcome outcome = f.module().beginCall(stack, out);
            if (event != null) {
                ImportCallEvent.finish(event, false);
            }
            return outcome;
        } catch (StatusException e) {
            if (event != null) {
                ImportCallEvent.finish(event, true);
            }
            out.arguments().releaseRefs();
            throw e;
        }
    }

    /**
     * Marshals the arguments of an import call by {@code plan}; false (nothing written) if the
     * call site's register list is shorter than the plan needs, which the decoding path
     * ({@link #marshalImportArguments}) handles as it always did.
     */
    static boolean marshalPlanned(ImportPlan plan, byte[] c, int segments, int args, int[] r, RefObject[] refs,
                                  CallBuffer out) {
        int n = u16(c, args);
        if (!plan.variadic) {
            if (n < plan.fixedCount) {
                return false;
            }
            plan.marshalFixed(c, args, r, refs, out);
            return true;
        }
        int count = plan.fixedCount < u16(c, segments) ? u16(c, segments + 2 + 2 * plan.fixedCount) : 0;
        if (n < plan.fixedCount + count * plan.tupleLength) {
            return false;
        }
        out.resize(plan.fixedPrims + 1 + count * plan.tuplePrims, plan.fixedRefs + count * plan.tupleRefs);
        plan.marshalFixed(c, args, r, refs, out);
        out.setI32(plan.fixedPrims, count);
        plan.marshalSpan(c, args, count, r, refs, out);
        return true;
    }

    /** Marshals import arguments of argument {@code types} by decoding the types one by one. */
    static void marshalImportArguments(String types, byte[] c, int segments, int args, int[] r,
                                               RefObject[] refs, CallBuffer out) {
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
            out.resize(prims, refCount); // every slot is written below
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
                            passArgRef(refs, x, out, q++);
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
                    passArgRef(refs, x, out, q++);
                } else {
                    out.setBits(p++, t == 'I' || t == 'F' ? rl(r, x) : r[x]);
                }
            }
        }
    }

    /**
     * Passes register {@code reg} as import argument ref {@code slot}: a moved register's count
     * goes to the buffer (released after the call), any other is borrowed: the caller's register
     * keeps it alive for the whole call, so it is neither retained nor released (IREE retains and
     * releases it: two atomic operations per ref argument of every import call).
     */
    static void passArgRef(RefObject[] refs, int reg, CallBuffer out, int slot) {
        int r = reg & REF_MASK;
        if ((reg & MOVE_BIT) != 0) {
            out.setRef(slot, refs[r]);
            refs[r] = null;
        } else {
            out.setBorrowedRef(slot, refs[r]);
        }
    }

    /** The argument buffer owns one count per ref (retained or moved out of the register). */
    static RefObject takeArgRef(RefObject[] refs, int reg) {
        RefObject v = refs[reg & REF_MASK];
        if ((reg & MOVE_BIT) != 0) {
            refs[reg & REF_MASK] = null;
        } else {
            RefObject.retain(v);
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
        return finishImportAt(frame, c, results, next, base);
    }

    /**
     * {@link #finishImport} once the op is decoded: results to the registers of the list at
     * {@code results}; returns {@code next}, the pc after the call (both absolute).
     */
    static int finishImportAt(Frame frame, byte[] c, int results, int next, int base) {
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
    static int ret(BytecodeModule m, Stack stack, Frame frame, int fn, byte[] c, int op) {
        int base = m.fnBase[fn];
        int list = align(op + 1, base);
        int n = u16(c, list);
        int[] r = frame.i32Registers();
        RefObject[] refs = frame.refRegisters();
        Call call = frame.call();
        if (call != null) {
            byte[] kinds = m.fnResultKinds[fn];
            CallBuffer out = call.results();
            int pi = 0;
            int qi = 0;
            for (int i = 0; i < n && i < kinds.length; i++) {
                int x = u16(c, list + 2 + 2 * i);
                switch (kinds[i]) {
                    case BytecodeModule.KIND_64 -> out.setBits(pi++, rl(r, x));
                    case BytecodeModule.KIND_REF -> out.setRef(qi++, takeArgRef(refs, x));
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
        byte[] kinds = m.fnResultKinds[fn];
        for (int i = 0; i < n; i++) {
            int s = u16(c, list + 2 + 2 * i);
            int d = u16(c, dst + 2 + 2 * i);
            byte kind = i < kinds.length ? kinds[i]
                    : (s & TYPE_BIT) != 0 ? BytecodeModule.KIND_REF : BytecodeModule.KIND_32;
            if (kind == BytecodeModule.KIND_32) {
                cr[d] = r[s];
            } else if (kind == BytecodeModule.KIND_64) {
                wl(cr, d, rl(r, s));
            } else {
                retainOrMove((s & MOVE_BIT) != 0, refs, s & REF_MASK, crefs, d & REF_MASK);
            }
        }
        stack.leave(frame);
        return RELOAD;
    }
}
