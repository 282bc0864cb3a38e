package dev.ortho.vm.asm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.bytecode.ModuleDef.AttrDef;
import dev.ortho.vm.bytecode.ModuleDef.FunctionDescriptor;
import dev.ortho.vm.internal.isa.CoreOps;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parses one {@code vm.func} header and body and emits its bytecode into the module's buffer:
 * block markers, instructions in IREE's encoding, label fixups, register counts.
 */
final class FunctionAssembler {
    static final int REF_TYPE_BIT = 0x8000;
    static final int REF_MOVE_BIT = 0x4000;
    static final int IMPORT_BIT = 0x80000000;
    private static final int MAX_I32_ORDINAL = 0x7FFF;
    private static final int MAX_REF_ORDINAL = 0x3FFF;
    private static final Set<String> TERMINATORS = Set.of("Return", "Fail", "Branch", "CondBranch",
            "BranchTable", "Yield", "CallYieldable", "CallVariadicYieldable", "Break", "CondBreak");

    /** Register banks as the assembler sees them. */
    enum Bank { I32, I64, REF, ANY }

    final Assembler.State module;
    final ByteSink out;
    final String name;
    private final String cconv;
    private final List<AttrDef> attrs;
    private final int start;
    private int blockCount = 1;
    int i32Count;
    int refCount;
    private int requirements;
    /** Registers the calling convention needs for the arguments (64-bit values even-aligned). */
    private int argumentI32;
    private int argumentRefs;
    private boolean endsWithTerminator;
    private final Map<String, Integer> labels = new HashMap<>();
    private final List<Assembler.Fixup> labelFixups = new ArrayList<>();

    FunctionAssembler(Assembler.State module, Cursor c, int start) {
        this.module = module;
        this.out = module.bytecode;
        this.start = start;
        c.skipSpace();
        int nameStart = c.pos;
        this.name = c.symbol("function name");
        if (module.functionOrdinals.containsKey(name)) {
            throw c.errorAt(nameStart, "duplicate function @" + name);
        }
        StringBuilder sig = new StringBuilder("0");
        c.expect('(');
        int args = 0;
        int expectI32 = 0;
        int expectRef = 0;
        if (!c.accept(')')) {
            do {
                c.skipSpace();
                int regStart = c.pos;
                int reg;
                char kind;
                if (c.text.startsWith("%r", c.pos)) {
                    reg = register(c, Bank.REF, false, false);
                    c.expect(':');
                    kind = cconvType(c);
                    if (kind != 'r' || reg != (REF_TYPE_BIT | expectRef)) {
                        throw c.errorAt(regStart, "expected ref argument %r" + expectRef + " with a !type");
                    }
                    expectRef++;
                    argumentRefs++;
                } else {
                    int save = c.pos;
                    c.expect("%i");
                    c.symbolChars();
                    boolean pair = c.pos + 1 < c.end && c.text.charAt(c.pos) == ':' && Character.isDigit(c.text.charAt(c.pos + 1));
                    c.pos = save;
                    reg = register(c, pair ? Bank.I64 : Bank.I32, false, false);
                    c.expect(':');
                    kind = cconvType(c);
                    boolean wide = kind == 'I' || kind == 'F';
                    // IREE's text numbers 64-bit arguments sequentially (%i0: i32, %i1:2: i64); the
                    // runtime places them at the next even register (%i2:3), which is accepted too.
                    boolean sequential = reg == expectI32;
                    boolean aligned = wide && reg == ((expectI32 + 1) & ~1);
                    if (kind == 'r' || wide != pair || !(sequential || aligned)) {
                        throw c.errorAt(regStart, "expected value argument %i" + expectI32
                                + (wide ? ":" + (expectI32 + 1) : "") + " matching its type");
                    }
                    expectI32 = reg + (wide ? 2 : 1);
                    argumentI32 = wide ? ((argumentI32 + 1) & ~1) + 2 : argumentI32 + 1;
                }
                sig.append(kind);
                args++;
            } while (c.accept(','));
            c.expect(')');
        }
        if (args == 0) {
            sig.append('v');
        }
        sig.append('_');
        c.expect("->");
        c.expect('(');
        int results = 0;
        if (!c.accept(')')) {
            do {
                if (c.peek() == '%') {
                    register(c, Bank.ANY, true, false);
                    c.expect(':');
                }
                sig.append(cconvType(c));
                results++;
            } while (c.accept(','));
            c.expect(')');
        }
        if (results == 0) {
            sig.append('v');
        }
        this.cconv = sig.toString();
        // As IREE's assembler: argument registers do not count; only registers the body uses do.
        i32Count = 0;
        refCount = 0;
        this.attrs = c.acceptWord("attributes") ? module.parseAttributes(c) : List.of();
        c.expect('{');
        c.expectEnd();
        out.u8(CoreOps.BLOCK);
    }

    private static char cconvType(Cursor c) {
        c.skipSpace();
        int typeStart = c.pos;
        String type = c.type("type like i32, i64, f32, f64 or !vm.buffer");
        switch (type) {
            case "i32": return 'i';
            case "i64": return 'I';
            case "f32": return 'f';
            case "f64": return 'F';
            default:
                if (type.startsWith("!")) {
                    return 'r';
                }
                throw c.errorAt(typeStart, "expected type like i32, i64, f32, f64 or !vm.buffer, got '" + type + "'");
        }
    }

    /** Parses a body line: a block label or an instruction. */
    void parseLine(Cursor c) {
        c.skipSpace();
        int lineStart = c.pos;
        if (c.peek() == '^') {
            int save = c.pos;
            c.pos++;
            String label = c.symbolChars();
            if (!label.isEmpty() && c.accept(':') && c.atEnd()) {
                defineLabel(c, lineStart, label);
                return;
            }
            c.pos = save;
        }
        new InstructionAssembler(this, c).parse();
    }

    private void defineLabel(Cursor c, int position, String label) {
        int pc = out.size() - start;
        if (labels.isEmpty() && pc == 1) {
            pc = 0;
        } else {
            out.u8(CoreOps.BLOCK);
            blockCount++;
        }
        if (labels.putIfAbsent(label, pc) != null) {
            throw c.errorAt(position, "duplicate block label ^" + label);
        }
        endsWithTerminator = false;
    }

    void noteInstruction(OpTable.Op op) {
        requirements |= op.feature();
        module.requirements |= op.feature();
        endsWithTerminator = op.prefix() < 0 && TERMINATORS.contains(op.symbol());
    }

    void labelFixup(Cursor c, int position, String label) {
        labelFixups.add(new Assembler.Fixup(out.size(), label, 4, module.where(c, position)));
        out.u32(0);
    }

    FunctionDescriptor finish(Cursor c) {
        if (!endsWithTerminator) {
            throw c.errorAt(0, "expected a terminator (vm.return, vm.fail, vm.br, ...) before '}' of function @" + name);
        }
        for (Assembler.Fixup f : labelFixups) {
            Integer pc = labels.get(f.name());
            if (pc == null) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT,
                        f.where() + ": unknown block label ^" + f.name() + " in function @" + name);
            }
            out.patch32(f.offset(), pc);
        }
        // Like IREE, register counts come from the body only; runtimes round them up to a power of
        // two. Where that would not even hold the arguments (IREE's verifier would reject the
        // module), count the argument registers instead.
        if (Integer.highestOneBit(Math.max(1, i32Count) * 2 - 1) < argumentI32) {
            i32Count = argumentI32;
        }
        if (Integer.highestOneBit(Math.max(1, refCount) * 2 - 1) < argumentRefs) {
            refCount = argumentRefs;
        }
        if (i32Count > Short.MAX_VALUE || refCount > Short.MAX_VALUE || blockCount > Short.MAX_VALUE) {
            throw c.errorAt(0, "function @" + name + " uses too many registers or blocks (i32 " + i32Count
                    + ", ref " + refCount + ", blocks " + blockCount + "; limit " + Short.MAX_VALUE + ")");
        }
        return new FunctionDescriptor(start, out.size() - start, requirements, (short) 0, (short) blockCount,
                (short) i32Count, (short) refCount);
    }

    Assembler.Function function(FunctionDescriptor descriptor) {
        return new Assembler.Function(name, cconv, attrs, descriptor);
    }

    /**
     * Reads a register of {@code bank} and returns its encoding, updating the register counts.
     * {@code bareWide} lets a 64-bit register be written without its {@code :N+1} half (as
     * IREE's disassembler prints register lists).
     */
    int register(Cursor c, Bank bank, boolean moveAllowed, boolean bareWide) {
        c.skipSpace();
        int at = c.pos;
        if (bank == Bank.ANY) {
            if (c.text.startsWith("%r", at) || c.text.startsWith("%R", at)) {
                return register(c, Bank.REF, true, false);
            }
            if (!c.text.startsWith("%i", at)) {
                throw c.expected("register like %i0, %i0:1 or %r0");
            }
            c.pos += 2;
            c.symbolChars();
            boolean pair = c.pos + 1 < c.end && c.text.charAt(c.pos) == ':' && Character.isDigit(c.text.charAt(c.pos + 1));
            c.pos = at;
            return register(c, pair ? Bank.I64 : Bank.I32, false, false);
        }
        if (bank == Bank.REF) {
            boolean move = c.text.startsWith("%R", at);
            if (!move && !c.text.startsWith("%r", at)) {
                throw c.expected("ref register like %r0");
            }
            if (move && !moveAllowed) {
                throw c.errorAt(at, "operand does not allow a ref move (%R); use %r");
            }
            c.pos += 2;
            int ordinal = ordinal(c, at, MAX_REF_ORDINAL, "ref register");
            refCount = Math.max(refCount, ordinal + 1);
            return REF_TYPE_BIT | (move ? REF_MOVE_BIT : 0) | ordinal;
        }
        if (!c.text.startsWith("%i", at)) {
            throw c.expected(bank == Bank.I64 ? "64-bit register like %i0:1" : "value register like %i0");
        }
        c.pos += 2;
        int ordinal = ordinal(c, at, MAX_I32_ORDINAL, "value register");
        int span = 1;
        if (c.pos < c.end && c.text.charAt(c.pos) == ':' && c.pos + 1 < c.end && Character.isDigit(c.text.charAt(c.pos + 1))) {
            if (bank != Bank.I64) {
                throw c.errorAt(at, "expected 32-bit register like %i" + ordinal + ", got a register pair");
            }
            c.pos++;
            int high = ordinal(c, at, MAX_I32_ORDINAL, "value register");
            if (high != ordinal + 1) {
                throw c.errorAt(at, "expected 64-bit register pair %i" + ordinal + ":" + (ordinal + 1));
            }
            span = 2;
        } else if (bank == Bank.I64) {
            if (!bareWide) {
                throw c.errorAt(at, "expected 64-bit register like %i" + ordinal + ":" + (ordinal + 1));
            }
            span = 2;
        }
        i32Count = Math.max(i32Count, ordinal + span);
        return ordinal;
    }

    private static int ordinal(Cursor c, int at, int max, String what) {
        int digitsStart = c.pos;
        long value = 0;
        while (c.pos < c.end && Character.isDigit(c.text.charAt(c.pos)) && value <= max) {
            value = value * 10 + (c.text.charAt(c.pos) - '0');
            c.pos++;
        }
        if (c.pos == digitsStart) {
            throw c.errorAt(at, "expected " + what + " ordinal");
        }
        if (value > max || (c.pos < c.end && Character.isDigit(c.text.charAt(c.pos)))) {
            throw c.errorAt(at, what + " ordinal out of range (max " + max + ")");
        }
        return (int) value;
    }

    /** Emits a reference to function {@code @...} (internal or import) and returns nothing. */
    void functionRef(Cursor c) {
        c.skipSpace();
        int at = c.pos;
        String symbol = c.symbol("function like @module.name or @module:ordinal");
        if (c.pos < c.end && c.text.charAt(c.pos) == ':') {
            if (!symbol.equals(module.moduleName)) {
                throw c.errorAt(at, "internal function ordinal must use this module's name @" + module.moduleName + ":N");
            }
            c.pos++;
            out.u32((int) c.unsigned("function ordinal", 0x7FFFFFFFL));
            return;
        }
        Integer importOrdinal = module.importOrdinals.get(symbol);
        if (importOrdinal != null) {
            out.u32(IMPORT_BIT | importOrdinal);
            return;
        }
        String local = symbol;
        if (symbol.startsWith(module.moduleName + ".")) {
            local = symbol.substring(module.moduleName.length() + 1);
        }
        Integer ordinal = module.functionOrdinals.get(local);
        if (ordinal != null) {
            out.u32(ordinal);
        } else {
            module.functionFixups.add(new Assembler.Fixup(out.size(), local, 4, module.where(c, at)));
            out.u32(0);
        }
    }

    /** Emits a branch remap list {@code %a->%b, ...} up to (not including) the closing parenthesis. */
    void remapList(Cursor c) {
        out.align(2);
        int countAt = out.size();
        out.u16(0);
        int count = 0;
        if (c.peek() != ')') {
            do {
                int src = register(c, Bank.ANY, true, false);
                c.expect("->");
                int dst = register(c, Bank.ANY, true, false);
                out.u16(src);
                out.u16(dst);
                count++;
            } while (c.accept(','));
        }
        if (count > 0xFFFF) {
            throw c.error("branch remap list is too long");
        }
        out.patch16(countAt, count);
    }

    /**
     * Emits a register list (u16 count then registers, 2-byte aligned) read until {@code close}
     * (or the end of the line when {@code close} is 0).
     */
    void registerList(Cursor c, Bank bank, char close) {
        out.align(2);
        int countAt = out.size();
        out.u16(0);
        int count = 0;
        boolean empty = close == 0 ? c.atEnd() : c.peek() == close;
        if (!empty) {
            do {
                out.u16(register(c, bank, true, true));
                count++;
            } while (c.accept(','));
        }
        if (count > 0xFFFF) {
            throw c.error("register list is too long");
        }
        out.patch16(countAt, count);
    }

}
