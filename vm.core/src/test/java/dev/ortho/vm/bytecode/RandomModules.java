package dev.ortho.vm.bytecode;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.Context;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.NativeModule;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Random verified VMASM modules for differential testing of the compiler against the
 * interpreter, shared by {@code CompilerDifferentialTest} (a seeded {@link SplittableRandom}) and
 * the Jazzer target {@code CompilerDifferentialFuzzTest} in {@code fuzz/} (the fuzzer's bytes).
 * Each module has {@value #FUNCTIONS} internal functions of integer, i64, f32/f64 (casts, fma,
 * select, every transcendental and rounding op, fpowi, bitcasts), buffer (loads, stores, length, fill, copy, compare), ref, switch and call ops (calls
 * only to earlier functions, so no recursion, and calls of {@link #HOST}'s imports), forward
 * branches (some moving an i64 as its two halves, as IREE encodes it), branch tables, bounded
 * back-edges, registers reused for values of other types and {@code vm.fail}, and one export per
 * function that calls it with constants and a fresh 64-byte buffer. Every choice comes from {@link Choices}, so any source of choices,
 * however short, gives a module the assembler and verifier accept.
 */
public final class RandomModules {
    /** Internal functions (and exports) per module. */
    public static final int FUNCTIONS = 4;
    /** The instruction extensions the modules use (ExtF32, ExtF64). */
    public static final List<InstructionExtension> EXTENSIONS = List.of(new ExtF32Extension(), new ExtF64Extension());

    /** Where the generator's choices come from; results outside the bounds are not allowed. */
    public interface Choices {
        /** A value in [origin, bound). */
        int nextInt(int origin, int bound);

        /** A value in [0, bound). */
        int nextInt(int bound);

        int nextInt();

        long nextLong();

        boolean nextBoolean();

        /** The choices of {@code random} (the same sequence its methods give). */
        static Choices of(SplittableRandom random) {
            return new Choices() {
                @Override
                public int nextInt(int origin, int bound) {
                    return random.nextInt(origin, bound);
                }

                @Override
                public int nextInt(int bound) {
                    return random.nextInt(bound);
                }

                @Override
                public int nextInt() {
                    return random.nextInt();
                }

                @Override
                public long nextLong() {
                    return random.nextLong();
                }

                @Override
                public boolean nextBoolean() {
                    return random.nextBoolean();
                }
            };
        }
    }

    /**
     * What one export gave interpreted and compiled: {@code ok <result0> <result1>}, or
     * {@code status <StatusException.toString()>} (code, message and the backtrace annotations).
     */
    public record Outcome(String export, String interpreted, String compiled) {
        public boolean same() {
            return interpreted.equals(compiled);
        }
    }

    /**
     * The outcomes of a module: its functions' compilation report, how many compiled functions
     * got typed locals (the others keep the interpreter's register slots), and each export's
     * outcome.
     */
    public record Run(List<String> notCompiled, int typedFunctions, List<Outcome> outcomes) {
    }

    /** The imports the generated modules call: i32/i64, f32 and ref arguments, and a trap. */
    public static final NativeModule<Void> HOST = NativeModule.<Void>builder("host", 1)
            .export("scale", "0iI_I", (s, call) -> {
                int a = call.args().i32(0);
                if (a == 3) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, "host.scale refuses 3");
                }
                call.results().setI64(0, a * call.args().i64(1));
                return CallOutcome.COMPLETED;
            })
            .export("halve", "0f_f", (s, call) -> {
                call.results().setF32(0, call.args().f32(0) * 0.5f);
                return CallOutcome.COMPLETED;
            })
            .export("length", "0r_iI", (s, call) -> {
                RefObject r = call.args().ref(0);
                call.results().setI32(0, r == null ? 0 : 1);
                call.results().setI64(1, r instanceof VmBuffer b ? b.length() : -1);
                return CallOutcome.COMPLETED;
            })
            .build();

    private static final String[] I32_BINARY = {"add.i32", "sub.i32", "mul.i32", "div.i32.s", "div.i32.u",
        "rem.i32.s", "rem.i32.u", "and.i32", "or.i32", "xor.i32", "shl.i32", "shr.i32.s", "shr.i32.u",
        "min.i32.s", "max.i32.u", "cmp.eq.i32", "cmp.ne.i32", "cmp.lt.i32.s", "cmp.lt.i32.u"};
    private static final String[] I32_UNARY = {"not.i32", "ctlz.i32", "abs.i32", "cmp.nz.i32", "ext.i8.i32.s",
        "ext.i16.i32.u", "trunc.i32.i8"};
    private static final String[] I64_BINARY = {"add.i64", "sub.i64", "mul.i64", "div.i64.s", "rem.i64.u",
        "and.i64", "or.i64", "xor.i64", "min.i64.s", "max.i64.u"};
    private static final String[] I64_MORE = {"div.i64.u", "rem.i64.s", "min.i64.u", "max.i64.s", "mul.i64"};
    private static final String[] I32_MORE = {"min.i32.u", "max.i32.s", "mul.i32"};
    private static final String[] I64_CMP = {"cmp.eq.i64", "cmp.ne.i64", "cmp.lt.i64.s", "cmp.lt.i64.u"};
    private static final String[] F32_BINARY = {"add.f32", "sub.f32", "mul.f32", "div.f32", "min.f32", "max.f32",
        "rem.f32", "pow.f32", "atan2.f32"};
    private static final String[] F32_UNARY = {"sqrt.f32", "abs.f32", "neg.f32", "floor.f32", "exp.f32", "tanh.f32",
        "round.f32", "erf.f32", "ceil.f32", "round.f32.even", "atan.f32", "cos.f32", "sin.f32", "exp2.f32",
        "expm1.f32", "log.f32", "log10.f32", "log1p.f32", "log2.f32", "rsqrt.f32"};
    private static final String[] F64_MATH = {"erf.f64", "exp.f64", "tanh.f64", "ceil.f64", "round.f64",
        "round.f64.even", "atan.f64", "cos.f64", "sin.f64", "exp2.f64", "expm1.f64", "log.f64", "log10.f64",
        "log1p.f64", "log2.f64", "rsqrt.f64"};
    private static final String[] F64_MATH2 = {"rem.f64", "atan2.f64", "pow.f64"};
    private static final String[] F32_CMP = {"cmp.eq.f32.o", "cmp.eq.f32.u", "cmp.ne.f32.o", "cmp.ne.f32.u",
        "cmp.lt.f32.o", "cmp.lt.f32.u", "cmp.lte.f32.o", "cmp.lte.f32.u"};
    private static final String[] F64_BINARY = {"add.f64", "sub.f64", "mul.f64", "div.f64", "min.f64", "max.f64"};
    private static final String[] F64_CMP = {"cmp.eq.f64.o", "cmp.ne.f64.u", "cmp.lt.f64.o", "cmp.lte.f64.u"};
    private static final String[] LOADS = {"load.i8.u", "load.i8.s", "load.i16.u", "load.i16.s", "load.i32"};
    private static final String[] STORES = {"store.i8", "store.i16", "store.i32"};

    private RandomModules() {
    }

    /**
     * Assembles {@code text}, loads it interpreted and {@link ExecutionMode#EAGER} compiled, and
     * calls every export in both. Exceptions other than a trap's {@link StatusException}
     * propagate.
     */
    public static Run runBoth(String text, String name) {
        return runBoth(text, name, MethodSplitter.C1_METHOD_LIMIT);
    }

    /** As {@link #runBoth(String, String)}, the compiled module split from methods of {@code methodLimit} bytes. */
    static Run runBoth(String text, String name, int methodLimit) {
        ModuleDef def = new Assembler(EXTENSIONS).assemble(text, name + ".vmasm");
        Instance instance = new Instance();
        BytecodeModule interpreted = BytecodeModule.create(instance, def, EXTENSIONS);
        BytecodeModule compiled = BytecodeModule.create(instance, def, EXTENSIONS,
                BytecodeModule.Options.DEFAULT.withExecution(ExecutionMode.EAGER), methodLimit);
        List<String> notCompiled = new ArrayList<>();
        List<String> report = compiled.compilationReport();
        for (int i = 0; i < report.size(); i++) {
            if (report.get(i) != null) {
                notCompiled.add("function " + i + ": " + report.get(i));
            }
        }
        int typed = 0;
        for (String why : compiled.registerReport()) {
            typed += why == null ? 1 : 0;
        }
        List<Outcome> outcomes = new ArrayList<>();
        for (Function export : interpreted.exports()) {
            outcomes.add(new Outcome(export.name(), run(instance, interpreted, export.name()),
                    run(instance, compiled, export.name())));
        }
        return new Run(notCompiled, typed, outcomes);
    }

    private static String run(Instance instance, BytecodeModule module, String export) {
        try (Context context = Context.create(instance, HOST, module)) {
            VmList in = VmList.ofVariants(0);
            VmList out = VmList.ofVariants(2);
            try {
                Invocation.invoke(context, module.lookupExport(export), in, out);
                return "ok " + out.getVariant(0) + " " + out.getVariant(1);
            } catch (StatusException e) {
                return "status " + e; // code, message and annotations (the backtrace)
            }
        }
    }

    /** A module named {@code fuzz<n>} made of {@code r}'s choices. */
    public static String generate(Choices r, int n) {
        StringBuilder b = new StringBuilder();
        b.append("vm.module @fuzz").append(n).append(" version 0\n");
        b.append("vm.type i32\nvm.type i64\nvm.type f32\nvm.type f64\nvm.type !vm.buffer\n");
        b.append("vm.import @host.scale cconv \"0iI_I\"\nvm.import @host.halve cconv \"0f_f\"\n");
        b.append("vm.import @host.length cconv \"0r_iI\"\n\n");
        for (int f = 0; f < FUNCTIONS; f++) {
            function(b, r, n, f);
        }
        for (int f = 0; f < FUNCTIONS; f++) {
            b.append("vm.export @e").append(f).append('\n');
            b.append("vm.func @e").append(f).append("() -> (i32, i64) {\n^bb0:\n");
            b.append("  %i0 = vm.const.i32 ").append(r.nextInt(-100, 100)).append('\n');
            b.append("  %i1 = vm.const.i32 ").append(r.nextInt()).append('\n');
            b.append("  %i2:3 = vm.const.i64 64\n  %i4 = vm.const.i32 16\n");
            b.append("  %r0 = vm.buffer.alloc %i2:3, %i4\n");
            b.append("  %i6, %i8:9 = vm.call @fuzz").append(n).append(':').append(f).append("(%i0, %i1, %R0)\n");
            b.append("  vm.return %i6, %i8:9\n}\n\n");
        }
        return b.toString();
    }

    private static String i32(Choices r) {
        return "%i" + r.nextInt(0, 6);
    }

    private static String i64(Choices r) {
        return r.nextBoolean() ? "%i8:9" : "%i10:11";
    }

    private static String offset(Choices r) {
        return r.nextInt(4) == 0 ? i64(r) : "%i10:11";
    }

    private static String f32(Choices r) {
        return r.nextBoolean() ? "%i12" : "%i13";
    }

    private static void function(StringBuilder b, Choices r, int n, int f) {
        int blocks = r.nextInt(2, 6);
        b.append("vm.func @f").append(f).append("(%i0: i32, %i1: i32, %r0: !vm.buffer) -> (i32, i64) {\n^bb0:\n");
        b.append("  %i2 = vm.const.i32 ").append(r.nextInt(-5, 70)).append('\n');
        b.append("  %i3 = vm.const.i32 ").append(r.nextInt()).append('\n');
        b.append("  %i4 = vm.const.i32 0\n  %i5 = vm.const.i32 ").append(r.nextInt(0, 3)).append('\n');
        b.append("  %i6 = vm.const.i32 1\n  %i7 = vm.const.i32 ").append(r.nextInt(1, 6)).append('\n');
        b.append("  %i8:9 = vm.const.i64 ").append(r.nextLong()).append('\n');
        b.append("  %i10:11 = vm.const.i64 ").append(r.nextInt(-2, 66)).append('\n');
        b.append("  %i12 = vm.const.f32 ").append(r.nextInt(-50, 50) / 4.0).append('\n');
        b.append("  %i13 = vm.cast.si32.f32 %i0\n");
        b.append("  %i14:15 = vm.const.f64 ").append(r.nextInt(-50, 50) / 8.0).append('\n');
        b.append("  %r1 = vm.const.ref.zero\n");
        b.append("  vm.br ^bb1()\n");
        for (int k = 1; k <= blocks; k++) {
            b.append("^bb").append(k).append(":\n");
            int ops = r.nextInt(1, 9);
            for (int o = 0; o < ops; o++) {
                op(b, r, n, f);
            }
            if (k == blocks) {
                b.append("  vm.return ").append(i32(r)).append(", ").append(i64(r)).append('\n');
                continue;
            }
            int next = r.nextInt(k + 1, blocks + 1);
            switch (r.nextInt(7)) {
                case 0 -> {
                    if (r.nextBoolean()) {
                        b.append("  vm.br ^bb").append(next).append("(").append(i32(r)).append("->")
                                .append(i32(r)).append(")\n");
                    } else {
                        // An i64 moved as its two halves, as IREE encodes it.
                        String s = r.nextBoolean() ? "8" : "10";
                        String t = s.equals("8") ? "10" : "8";
                        b.append("  vm.br ^bb").append(next).append("(%i").append(s).append("->%i").append(t)
                                .append(", %i").append(Integer.parseInt(s) + 1).append("->%i")
                                .append(Integer.parseInt(t) + 1).append(")\n");
                    }
                }
                case 1 -> b.append("  vm.cond_br ").append(i32(r)).append(", ^bb").append(next).append("(), ^bb")
                        .append(r.nextInt(k + 1, blocks + 1)).append("(%r0->%r1)\n");
                case 2 -> b.append("  vm.br_table ").append(i32(r)).append(" { default: ^bb").append(next)
                        .append("(), 0: ^bb").append(r.nextInt(k + 1, blocks + 1)).append("(%i6->%i2), 1: ^bb")
                        .append(r.nextInt(k + 1, blocks + 1)).append("() }\n");
                case 3 -> {
                    // A bounded back-edge: %i7 only counts down.
                    b.append("  %i7 = vm.sub.i32 %i7, %i6\n  %i4 = vm.cmp.lt.i32.s %i6, %i7\n");
                    b.append("  vm.cond_br %i4, ^bb").append(r.nextInt(1, k + 1)).append("(), ^bb").append(next)
                            .append("()\n");
                }
                case 4 -> {
                    b.append("  %i4 = vm.and.i32 ").append(i32(r)).append(", %i6\n");
                    b.append("  vm.cond_br %i4, ^bb").append(next).append("(), ^bb").append(blocks + 1)
                            .append("()\n");
                }
                case 6 -> countedLoop(b, r, n, f, k, next);
                default -> b.append("  vm.br ^bb").append(next).append("()\n");
            }
        }
        b.append("^bb").append(blocks + 1).append(":\n  %i5 = vm.const.i32 ").append(r.nextInt(1, 17))
                .append("\n  vm.fail %i5, \"fuzz failure ").append(f).append("\"\n}\n\n");
    }

    /**
     * A counted loop over the buffer, the shape the compiler keeps a loop-invariant buffer's
     * segment and bounds in locals for and fuses the exit test with its branch: an i64 index from
     * a start (-1 sometimes: a trap in the first iteration) up to a limit that may run past the
     * 64-byte buffer (a trap at that iteration, after the stores of the earlier ones), element
     * loads and stores through {@code %r0} or {@code %r1} (null, or {@code %r0} itself: aliasing),
     * sometimes {@code %r1} cleared inside the loop (then it is not loop-invariant), random ops,
     * and a back edge that moves a register (not a plain jump) now and then.
     */
    private static void countedLoop(StringBuilder b, Choices r, int n, int f, int k, int next) {
        b.append("  %i18:19 = vm.const.i64 ").append(r.nextInt(8) == 0 ? -1 : r.nextInt(0, 4)).append('\n');
        b.append("  %i20:21 = vm.const.i64 ").append(r.nextInt(4, 21)).append('\n');
        b.append("  %i22:23 = vm.const.i64 1\n");
        b.append("  vm.br ^lp").append(k).append("()\n");
        b.append("^lp").append(k).append(":\n");
        int body = r.nextInt(1, 5);
        for (int o = 0; o < body; o++) {
            String buf = r.nextInt(4) == 0 ? "%r1" : "%r0";
            String d = "%i" + r.nextInt(2, 6);
            switch (r.nextInt(9)) {
                case 0 -> b.append("  ").append(d).append(" = vm.buffer.load.i32 ").append(buf)
                        .append(", %i18:19\n  %i2 = vm.add.i32 %i2, ").append(d).append('\n');
                case 1 -> b.append("  vm.buffer.store.i32 ").append(i32(r)).append(", ").append(buf)
                        .append(", %i18:19\n");
                case 2 -> b.append("  %i12 = vm.buffer.load.f32 ").append(buf)
                        .append(", %i18:19\n  %i13 = vm.add.f32 %i13, %i12\n");
                case 3 -> b.append("  vm.buffer.store.f32 ").append(f32(r)).append(", ").append(buf)
                        .append(", %i18:19\n");
                case 4 -> b.append("  ").append(i64(r)).append(" = vm.buffer.load.i64 ").append(buf)
                        .append(", %i18:19\n");
                case 5 -> b.append("  vm.buffer.store.i8 ").append(i32(r)).append(", ").append(buf)
                        .append(", %i18:19\n");
                case 6 -> {
                    if (r.nextBoolean()) {
                        b.append("  %r1 = vm.const.ref.zero\n");
                    } else {
                        b.append("  %r1 = vm.assign.ref %r0\n");
                    }
                }
                default -> op(b, r, n, f);
            }
        }
        b.append("  %i18:19 = vm.add.i64 %i18:19, %i22:23\n");
        b.append("  %i4 = vm.").append(r.nextInt(4) == 0 ? "cmp.ne.i64" : "cmp.lt.i64.s")
                .append(" %i18:19, %i20:21\n");
        b.append("  vm.cond_br %i4, ^lp").append(k).append(r.nextInt(4) == 0 ? "(%i6->%i5)" : "()")
                .append(", ^bb").append(next).append("()\n");
    }

    private static void op(StringBuilder b, Choices r, int n, int f) {
        String d = "%i" + r.nextInt(2, 6);
        switch (r.nextInt(38)) {
            case 0, 1, 2 -> b.append("  ").append(d).append(" = vm.").append(pick(r, I32_BINARY)).append(' ')
                    .append(i32(r)).append(", ").append(i32(r)).append('\n');
            case 3 -> b.append("  ").append(d).append(" = vm.").append(pick(r, I32_UNARY)).append(' ')
                    .append(i32(r)).append('\n');
            case 4 -> b.append("  ").append(d).append(" = vm.select.i32 ").append(i32(r)).append(" ? ")
                    .append(i32(r)).append(" : ").append(i32(r)).append('\n');
            case 5 -> b.append("  ").append(d).append(" = vm.const.i32 ").append(r.nextInt(-3, 40)).append('\n');
            case 6 -> b.append("  ").append(i64(r)).append(" = vm.").append(pick(r, I64_BINARY)).append(' ')
                    .append(i64(r)).append(", ").append(i64(r)).append('\n');
            case 7 -> b.append("  ").append(d).append(" = vm.").append(pick(r, I64_CMP)).append(' ')
                    .append(i64(r)).append(", ").append(i64(r)).append('\n');
            case 8 -> b.append("  ").append(i64(r)).append(" = vm.").append(r.nextBoolean() ? "shl.i64" : "shr.i64.s")
                    .append(' ').append(i64(r)).append(", ").append(i32(r)).append('\n');
            case 9 -> b.append("  ").append(i64(r)).append(" = vm.ext.i32.i64.").append(r.nextBoolean() ? "s" : "u")
                    .append(' ').append(i32(r)).append('\n');
            case 10 -> b.append("  ").append(d).append(" = vm.trunc.i64.i32 ").append(i64(r)).append('\n');
            case 11 -> b.append("  ").append(f32(r)).append(" = vm.").append(pick(r, F32_BINARY)).append(' ')
                    .append(f32(r)).append(", ").append(f32(r)).append('\n');
            case 12 -> b.append("  ").append(f32(r)).append(" = vm.").append(pick(r, F32_UNARY)).append(' ')
                    .append(f32(r)).append('\n');
            case 13 -> b.append("  ").append(d).append(" = vm.").append(pick(r, F32_CMP)).append(' ')
                    .append(f32(r)).append(", ").append(f32(r)).append('\n');
            case 14 -> {
                b.append("  %i14:15 = vm.ext.f32.f64 ").append(f32(r)).append('\n');
                b.append("  %i14:15 = vm.").append(pick(r, F64_BINARY)).append(" %i14:15, %i14:15\n");
                b.append("  ").append(d).append(" = vm.").append(pick(r, F64_CMP)).append(" %i14:15, %i14:15\n");
                b.append("  ").append(f32(r)).append(" = vm.trunc.f64.f32 %i14:15\n");
            }
            case 15 -> b.append("  ").append(d).append(" = vm.cast.f32.si32 ").append(f32(r)).append('\n');
            case 16 -> b.append("  ").append(d).append(" = vm.buffer.").append(pick(r, LOADS)).append(" %r0, ")
                    .append(offset(r)).append('\n');
            case 17 -> b.append("  vm.buffer.").append(pick(r, STORES)).append(' ').append(i32(r))
                    .append(", %r0, ").append(offset(r)).append('\n');
            case 18 -> b.append("  ").append(f32(r)).append(" = vm.buffer.load.f32 %r0, ").append(offset(r))
                    .append('\n');
            case 19 -> {
                b.append("  %r1 = vm.const.ref.zero\n");
                b.append("  ").append(d).append(" = vm.cmp.nz.ref ").append(r.nextBoolean() ? "%r0" : "%r1")
                        .append('\n');
            }
            case 20 -> {
                if (f > 0) {
                    b.append("  ").append(d).append(", ").append(i64(r)).append(" = vm.call @fuzz").append(n)
                            .append(':').append(r.nextInt(0, f)).append('(').append(i32(r)).append(", ")
                            .append(i32(r)).append(", %r0)\n");
                }
            }
            case 21 -> {
                if (r.nextBoolean()) {
                    b.append("  %i14:15 = vm.").append(pick(r, F64_MATH)).append(" %i14:15\n");
                } else {
                    b.append("  %i14:15 = vm.").append(pick(r, F64_MATH2)).append(" %i14:15, %i14:15\n");
                }
            }
            case 36 -> {
                switch (r.nextInt(8)) {
                    case 0 -> b.append("  ").append(d).append(" = vm.cast.f64.").append(r.nextBoolean() ? "si32" : "ui32")
                            .append(" %i14:15\n");
                    case 1 -> b.append("  ").append(i64(r)).append(" = vm.cast.f64.")
                            .append(r.nextBoolean() ? "si64" : "ui64").append(" %i14:15\n");
                    case 2 -> b.append("  %i14:15 = vm.cast.").append(r.nextBoolean() ? "si64" : "ui64")
                            .append(".f64 ").append(i64(r)).append('\n');
                    case 3 -> b.append("  %i14:15 = vm.cast.ui32.f64 ").append(i32(r)).append('\n');
                    case 4 -> b.append("  ").append(f32(r)).append(" = vm.cast.").append(r.nextBoolean() ? "si64" : "ui64")
                            .append(".f32 ").append(i64(r)).append('\n');
                    case 5 -> b.append("  ").append(i64(r)).append(" = vm.cast.f32.ui64 ").append(f32(r)).append('\n');
                    case 6 -> b.append("  ").append(f32(r)).append(" = vm.fpowi.f32 ").append(f32(r)).append(", ")
                            .append(i64(r)).append('\n');
                    default -> b.append("  %i14:15 = vm.fpowi.f64 %i14:15, ").append(i64(r)).append('\n');
                }
            }
            case 37 -> {
                if (r.nextBoolean()) {
                    b.append("  ").append(i64(r)).append(" = vm.bitcast.f64.i64 %i14:15\n");
                } else {
                    b.append("  %i14:15 = vm.bitcast.i64.f64 ").append(i64(r)).append('\n');
                }
            }
            case 22 -> b.append("  ").append(d).append(" = vm.switch.i32 ").append(i32(r)).append('[').append(i32(r))
                    .append(", ").append(i32(r)).append("] else ").append(i32(r)).append('\n');
            case 23 -> b.append("  ").append(i64(r)).append(" = vm.").append(r.nextBoolean() ? "abs.i64" : "ctlz.i64")
                    .append(' ').append(i64(r)).append('\n');
            case 24 -> b.append("  ").append(i64(r)).append(" = vm.select.i64 ").append(i32(r)).append(" ? ")
                    .append(i64(r)).append(" : ").append(i64(r)).append('\n');
            case 25 -> {
                if (r.nextBoolean()) {
                    b.append("  ").append(f32(r)).append(" = vm.fma.f32 ").append(f32(r)).append(", ").append(f32(r))
                            .append(", ").append(f32(r)).append('\n');
                } else {
                    b.append("  ").append(f32(r)).append(" = vm.select.f32 ").append(i32(r)).append(" ? ")
                            .append(f32(r)).append(" : ").append(f32(r)).append('\n');
                }
            }
            case 26 -> {
                switch (r.nextInt(4)) {
                    case 0 -> b.append("  ").append(d).append(" = vm.cast.f32.ui32 ").append(f32(r)).append('\n');
                    case 1 -> b.append("  ").append(f32(r)).append(" = vm.cast.ui32.f32 ").append(i32(r)).append('\n');
                    case 2 -> b.append("  ").append(i64(r)).append(" = vm.cast.f32.si64 ").append(f32(r)).append('\n');
                    default -> b.append("  %i14:15 = vm.").append(r.nextBoolean() ? "sqrt.f64" : "floor.f64")
                            .append(" %i14:15\n  ").append(f32(r)).append(" = vm.trunc.f64.f32 %i14:15\n");
                }
            }
            case 27 -> b.append("  %i10:11 = vm.buffer.length %r0\n");
            case 28 -> b.append("  vm.buffer.fill.i32 %r0, ").append(offset(r)).append(", ").append(offset(r))
                    .append(", ").append(i32(r)).append('\n');
            case 29 -> {
                if (r.nextBoolean()) {
                    b.append("  ").append(d).append(" = vm.buffer.compare %r0, ").append(offset(r)).append(", %r0, ")
                            .append(offset(r)).append(", ").append(offset(r)).append('\n');
                } else {
                    b.append("  vm.buffer.copy %r0, ").append(offset(r)).append(", %r0, ").append(offset(r))
                            .append(", ").append(offset(r)).append('\n');
                }
            }
            case 30 -> b.append("  ").append(i64(r)).append(" = vm.call @host.scale(").append(i32(r)).append(", ")
                    .append(i64(r)).append(")\n");
            case 31 -> b.append("  ").append(f32(r)).append(" = vm.call @host.halve(").append(f32(r)).append(")\n");
            case 32 -> b.append("  ").append(d).append(", ").append(i64(r)).append(" = vm.call @host.length(")
                    .append(r.nextBoolean() ? "%r0" : "%r1").append(")\n");
            case 33 -> {
                // Register reuse across types, as IREE's allocator does: %i16 is an i32, then the
                // low half of an i64, then an f32.
                b.append("  %i16 = vm.add.i32 ").append(i32(r)).append(", %i6\n");
                b.append("  ").append(d).append(" = vm.fma.i32 %i16, ").append(i32(r)).append(", ")
                        .append(i32(r)).append('\n');
                b.append("  %i16:17 = vm.fma.i64 ").append(i64(r)).append(", ").append(i64(r)).append(", ")
                        .append(i64(r)).append('\n');
                b.append("  %i8:9 = vm.").append(pick(r, I64_MORE)).append(" %i16:17, ").append(i64(r)).append('\n');
                b.append("  %i16 = vm.mul.f32 ").append(f32(r)).append(", ").append(f32(r)).append('\n');
                b.append("  ").append(f32(r)).append(" = vm.add.f32 %i16, ").append(f32(r)).append('\n');
            }
            case 34 -> b.append("  ").append(d).append(" = vm.").append(pick(r, I32_MORE)).append(' ')
                    .append(i32(r)).append(", ").append(i32(r)).append('\n');
            case 35 -> {
                if (r.nextInt(3) == 0) {
                    // The halves of an i64 read as i32s: the function keeps the slot representation.
                    b.append("  ").append(d).append(" = vm.add.i32 %i8, %i9\n");
                }
            }
            default -> b.append("  %i10:11 = vm.const.i64 ").append(r.nextInt(-1, 66)).append('\n');
        }
    }

    private static String pick(Choices r, String[] options) {
        return options[r.nextInt(options.length)];
    }
}
