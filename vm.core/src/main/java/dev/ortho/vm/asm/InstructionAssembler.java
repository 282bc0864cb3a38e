package dev.ortho.vm.asm;

import dev.ortho.vm.asm.FunctionAssembler.Bank;
import dev.ortho.vm.spi.OperandKind;
import dev.ortho.vm.spi.OperandSpec;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Encodes one instruction line: {@code [results =] vm.mnemonic operands}. Operands follow the
 * op's field list (IREE's generic VMASM form); calls, branch tables, selects, switches, stores,
 * list allocation, casts and traces have the dedicated forms IREE's disassembler prints.
 */
final class InstructionAssembler {
    private static final BigInteger I32_MIN = BigInteger.valueOf(Integer.MIN_VALUE);
    private static final BigInteger U32_MAX = BigInteger.valueOf(0xFFFFFFFFL);
    private static final BigInteger I64_MIN = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    private final FunctionAssembler fn;
    private final Cursor c;
    private final ByteSink out;
    private final List<Integer> results = new ArrayList<>();
    private boolean resultsUsed;
    private int mnemonicAt;
    private boolean first = true;

    InstructionAssembler(FunctionAssembler fn, Cursor c) {
        this.fn = fn;
        this.c = c;
        this.out = fn.out;
    }

    void parse() {
        c.skipSpace();
        if (c.peek() == '%') {
            do {
                c.skipSpace();
                results.add(c.pos);
                skipRegisterToken();
            } while (c.accept(','));
            c.expect('=');
        }
        c.skipSpace();
        mnemonicAt = c.pos;
        String mnemonic = c.symbolChars();
        if (mnemonic.isEmpty()) {
            throw c.expected("instruction like vm.add.i32");
        }
        String bare = mnemonic.startsWith("vm.") ? mnemonic.substring(3) : mnemonic;
        OpTable.Op op = fn.module.ops.byMnemonic(bare);
        if (op == null) {
            throw c.errorAt(mnemonicAt, "unknown VM instruction '" + mnemonic + "'");
        }
        if (op.prefix() >= 0) {
            out.u8(op.prefix());
        }
        out.u8(op.desc().opcode());
        fn.noteInstruction(op);
        List<OperandSpec> fields = op.desc().operands();
        String symbol = op.symbol();
        switch (symbol) {
            case "Call", "CallVariadic", "CallYieldable", "CallVariadicYieldable" -> call(symbol);
            case "BranchTable" -> branchTable();
            case "ListAlloc" -> listAlloc();
            case "CastAnyRef" -> cast(fields);
            case "Trace", "Print" -> trace();
            default -> {
                if (symbol.startsWith("Select")) {
                    select(fields);
                } else if (symbol.startsWith("Switch")) {
                    switchOp(fields);
                } else if (symbol.startsWith("BufferStore")) {
                    bufferStore(fields);
                } else if (symbol.startsWith("GlobalLoadIndirect") || symbol.startsWith("GlobalStoreIndirect")) {
                    globalIndirect(fields, symbol.startsWith("GlobalStore"));
                } else if (fields.size() >= 2 && fields.get(0).kind() == OperandKind.GLOBAL_ATTR
                        && fields.get(fields.size() - 1).kind() == OperandKind.REGISTER
                        && !fields.get(fields.size() - 1).write()) {
                    globalStore(fields);
                } else {
                    generic(fields);
                }
            }
        }
        if (!results.isEmpty() && !resultsUsed) {
            throw c.errorAt(results.get(0), "vm." + bare + " has no result");
        }
        c.expectEnd();
    }

    private void skipRegisterToken() {
        if (!c.accept('%')) {
            throw c.expected("result register like %i0");
        }
        c.symbolChars();
        if (c.pos < c.end && c.text.charAt(c.pos) == ':' && c.pos + 1 < c.end && Character.isDigit(c.text.charAt(c.pos + 1))) {
            c.pos++;
            c.symbolChars();
        }
    }

    private static Bank bank(String type) {
        if (type == null) {
            return Bank.ANY;
        }
        return switch (type) {
            case "i32", "f32" -> Bank.I32;
            case "i64", "f64" -> Bank.I64;
            case "ref" -> Bank.REF;
            default -> Bank.ANY;
        };
    }

    private void separator(OperandSpec f) {
        if (!first && !c.accept(',')) {
            throw c.expected("',' and operand '" + f.name() + "'");
        }
        first = false;
    }

    private int read(OperandSpec f) {
        return fn.register(c, bank(f.type()), f.moveAllowed(), false);
    }

    /** Parses the single result register for write field {@code f}. */
    private int result(OperandSpec f) {
        if (results.size() != 1) {
            throw c.errorAt(results.isEmpty() ? mnemonicAt : results.get(1),
                    results.isEmpty() ? "expected a result register: %x = " + c.text.substring(mnemonicAt, c.pos).trim()
                            : "expected exactly one result register");
        }
        resultsUsed = true;
        int save = c.pos;
        c.pos = results.get(0);
        int reg = fn.register(c, bank(f.type()), f.moveAllowed(), false);
        c.pos = save;
        return reg;
    }

    private void emitResultList() {
        resultsUsed = true;
        out.align(2);
        out.u16(results.size());
        int save = c.pos;
        for (int at : results) {
            c.pos = at;
            out.u16(fn.register(c, Bank.ANY, true, false));
        }
        c.pos = save;
    }

    private void generic(List<OperandSpec> fields) {
        String pendingType = null;
        for (int i = 0; i < fields.size(); i++) {
            OperandSpec f = fields.get(i);
            boolean typeNext = i + 1 < fields.size() && fields.get(i + 1).kind() == OperandKind.TYPE_OF;
            switch (f.kind()) {
                case REGISTER -> {
                    if (f.write()) {
                        out.u16(result(f));
                    } else {
                        separator(f);
                        out.u16(read(f));
                        if (typeNext && c.accept(':')) {
                            pendingType = c.type("type name");
                        }
                    }
                }
                case ATTRIBUTE -> {
                    separator(f);
                    attribute(f.type());
                }
                case GLOBAL_ATTR -> {
                    separator(f);
                    globalAttr(storageSize(fields, i));
                    if (typeNext) {
                        c.expect(':');
                        pendingType = c.type("type name");
                    }
                }
                case FUNC_ATTR -> {
                    separator(f);
                    fn.functionRef(c);
                }
                case RODATA_ATTR -> {
                    separator(f);
                    out.u32((int) c.unsigned("rodata ordinal", Integer.MAX_VALUE));
                }
                case TYPE_OF -> {
                    if (pendingType == null) {
                        c.expect(':');
                        pendingType = c.type("type name");
                    }
                    out.u32(fn.module.typeOrdinal(pendingType));
                    pendingType = null;
                }
                case CONST_I16 -> {
                    separator(f);
                    out.u16((int) c.unsigned("16-bit constant", 0xFFFF));
                }
                case STRING_ATTR -> {
                    separator(f);
                    string();
                }
                case VARIADIC_OPERANDS -> {
                    if (!c.atEnd()) {
                        separator(f);
                    }
                    fn.registerList(c, bank(f.type()), (char) 0);
                }
                case VARIADIC_RESULTS -> emitResultList();
                case BRANCH_TARGET -> {
                    separator(f);
                    branchTarget();
                    if (i + 1 < fields.size() && fields.get(i + 1).kind() == OperandKind.BRANCH_OPERANDS) {
                        i++;
                        remaps();
                    }
                }
                case BRANCH_OPERANDS -> remaps();
                case BRANCH_TABLE_CASES -> throw c.errorAt(mnemonicAt, "branch table cases need the vm.br_table form");
            }
        }
    }

    private static int storageSize(List<OperandSpec> fields, int from) {
        for (int i = from + 1; i < fields.size(); i++) {
            if (fields.get(i).kind() == OperandKind.REGISTER) {
                return switch (bank(fields.get(i).type())) {
                    case I32 -> 4;
                    case I64 -> 8;
                    default -> 0;
                };
            }
        }
        return 0;
    }

    private void attribute(String type) {
        c.skipSpace();
        int at = c.pos;
        String token = c.numberToken();
        if (token.isEmpty()) {
            throw c.expected(type + " immediate");
        }
        switch (type) {
            case "i32" -> {
                BigInteger v = CNumbers.parseInteger(token);
                if (v == null || v.compareTo(I32_MIN) < 0 || v.compareTo(U32_MAX) > 0) {
                    throw c.errorAt(at, "expected i32 immediate, got '" + token + "'");
                }
                out.u32(v.intValue());
            }
            case "i64" -> {
                BigInteger v = CNumbers.parseInteger(token);
                if (v == null || v.compareTo(I64_MIN) < 0 || v.compareTo(U64_MAX) > 0) {
                    throw c.errorAt(at, "expected i64 immediate, got '" + token + "'");
                }
                out.u64(v.longValue());
            }
            case "f32" -> {
                Float v = CNumbers.parseF32(token);
                if (v == null) {
                    throw c.errorAt(at, "expected f32 immediate, got '" + token + "'");
                }
                out.u32(Float.floatToRawIntBits(v));
            }
            case "f64" -> {
                Double v = CNumbers.parseF64(token);
                if (v == null) {
                    throw c.errorAt(at, "expected f64 immediate, got '" + token + "'");
                }
                out.u64(Double.doubleToRawLongBits(v));
            }
            default -> throw c.errorAt(at, "immediates of type " + type + " are not supported");
        }
    }

    /** {@code .rwdata[N]} (byte globals), {@code .refs[N]} (ref globals) or {@code @name}. */
    private void globalAttr(int size) {
        c.skipSpace();
        int at = c.pos;
        if (c.accept(".rwdata[")) {
            if (size == 0) {
                throw c.errorAt(at, "expected ref global like .refs[0]");
            }
            long offset = c.unsigned("global byte offset", 0xFFFFFFFFL - size);
            c.expect(']');
            fn.module.globalBytes = Math.max(fn.module.globalBytes, offset + size);
            out.u32((int) offset);
        } else if (c.accept(".refs[")) {
            if (size != 0) {
                throw c.errorAt(at, "expected byte global like .rwdata[0]");
            }
            long ordinal = c.unsigned("global ref ordinal", 0x7FFFFFFEL);
            c.expect(']');
            fn.module.globalRefs = Math.max(fn.module.globalRefs, ordinal + 1);
            out.u32((int) ordinal);
        } else if (c.peek() == '@') {
            String name = c.symbol("global");
            fn.module.globalFixups.add(new Assembler.Fixup(out.size(), name, size, fn.module.where(c, at)));
            out.u32(0);
        } else {
            throw c.expected(size == 0 ? "global like .refs[0]" : "global like .rwdata[0] or @name");
        }
    }

    private void string() {
        String value = c.quoted("string");
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > 0xFFFF) {
            throw c.error("string of " + bytes.length + " bytes exceeds 65535");
        }
        out.u16(bytes.length);
        out.raw(bytes);
    }

    private void branchTarget() {
        c.skipSpace();
        int at = c.pos;
        if (!c.accept('^')) {
            throw c.expected("block label like ^bb1");
        }
        String label = c.symbolChars();
        if (label.isEmpty()) {
            throw c.errorAt(at, "expected block label like ^bb1");
        }
        fn.labelFixup(c, at, label);
    }

    private void remaps() {
        if (c.accept('(')) {
            fn.remapList(c);
            c.expect(')');
        } else {
            fn.remapList(c);
        }
    }

    private void call(String symbol) {
        boolean variadic = symbol.contains("Variadic");
        boolean yieldable = symbol.endsWith("Yieldable");
        fn.functionRef(c);
        if (variadic) {
            if (!c.accept("segments[")) {
                throw c.expected("'segments[...]' after the callee of a variadic call");
            }
            out.align(2);
            int countAt = out.size();
            out.u16(0);
            int count = 0;
            if (c.peek() != ']') {
                do {
                    out.u16((int) c.unsigned("segment size", 0xFFFF));
                    count++;
                } while (c.accept(','));
            }
            c.expect(']');
            out.patch16(countAt, count);
        }
        c.expect('(');
        fn.registerList(c, Bank.ANY, ')');
        c.expect(')');
        if (yieldable) {
            if (!results.isEmpty()) {
                throw c.errorAt(results.get(0), "yieldable calls return their results in '-> ^block(results)'");
            }
            resultsUsed = true;
            c.expect("->");
            branchTarget();
            c.expect('(');
            fn.registerList(c, Bank.ANY, ')');
            c.expect(')');
        } else {
            emitResultList();
        }
    }

    private void branchTable() {
        out.u16(fn.register(c, Bank.I32, false, false));
        c.expect('{');
        if (!c.acceptWord("default")) {
            throw c.expected("'default:' case");
        }
        c.expect(':');
        branchTarget();
        remaps();
        int countAt = out.size();
        out.u16(0);
        int count = 0;
        while (c.accept(',')) {
            c.skipSpace();
            int at = c.pos;
            long index = c.unsigned("case index", 0xFFFF);
            if (index != count) {
                throw c.errorAt(at, "expected case " + count + " (cases are dense from 0), got " + index);
            }
            c.expect(':');
            branchTarget();
            remaps();
            count++;
        }
        c.expect('}');
        out.patch16(countAt, count);
    }

    private void listAlloc() {
        int capacity = fn.register(c, Bank.I32, false, false);
        c.expect(':');
        c.skipSpace();
        int at = c.pos;
        String listType = c.type("list type like !vm.list<i32>");
        if (!listType.startsWith("!vm.list<") || !listType.endsWith(">") || listType.length() <= 10) {
            throw c.errorAt(at, "expected list type like !vm.list<i32>, got '" + listType + "'");
        }
        out.u32(fn.module.typeOrdinal(listType.substring(9, listType.length() - 1).trim()));
        out.u16(capacity);
        out.u16(result(new OperandSpec("result", OperandKind.REGISTER, "ref", true, true)));
    }

    private void cast(List<OperandSpec> fields) {
        int operand = read(fields.get(0));
        if (c.accept(':')) {
            c.type("source type");
        }
        c.expect("->");
        String type = c.type("result type");
        out.u16(operand);
        out.u32(fn.module.typeOrdinal(type));
        out.u16(result(fields.get(2)));
    }

    private void trace() {
        string();
        if (c.accept('(')) {
            fn.registerList(c, Bank.ANY, ')');
            c.expect(')');
        } else if (c.accept(',')) {
            fn.registerList(c, Bank.ANY, (char) 0);
        } else {
            fn.registerList(c, Bank.ANY, (char) 0);
        }
    }

    /** {@code %c ? %t : %f} (refs: {@code -> type}); fields: condition, [type], true, false, result. */
    private void select(List<OperandSpec> fields) {
        boolean ref = fields.size() == 5;
        int condition = read(fields.get(0));
        c.expect('?');
        int t = read(fields.get(ref ? 2 : 1));
        c.expect(':');
        int f = read(fields.get(ref ? 3 : 2));
        out.u16(condition);
        if (ref) {
            c.expect("->");
            out.u32(fn.module.typeOrdinal(c.type("result type")));
        }
        out.u16(t);
        out.u16(f);
        out.u16(result(fields.get(fields.size() - 1)));
    }

    /** {@code %i[%a, %b] else %d} (refs: {@code : type}); fields: index, [type], default, values, result. */
    private void switchOp(List<OperandSpec> fields) {
        boolean ref = fields.size() == 5;
        int index = read(fields.get(0));
        OperandSpec valuesSpec = fields.get(ref ? 3 : 2);
        c.expect('[');
        List<Integer> values = new ArrayList<>();
        if (c.peek() != ']') {
            do {
                values.add(fn.register(c, bank(valuesSpec.type()), valuesSpec.moveAllowed(), true));
            } while (c.accept(','));
        }
        c.expect(']');
        if (!c.acceptWord("else")) {
            throw c.expected("'else' and the default value");
        }
        int defaultValue = read(fields.get(ref ? 2 : 1));
        out.u16(index);
        if (ref) {
            c.expect(':');
            out.u32(fn.module.typeOrdinal(c.type("value type")));
        }
        out.u16(defaultValue);
        out.align(2);
        out.u16(values.size());
        for (int v : values) {
            out.u16(v);
        }
        out.u16(result(fields.get(fields.size() - 1)));
    }

    /** {@code value, buffer, offset}; fields: buffer, offset, value. */
    private void bufferStore(List<OperandSpec> fields) {
        int value = read(fields.get(2));
        c.expect(',');
        int buffer = read(fields.get(0));
        c.expect(',');
        int offset = read(fields.get(1));
        out.u16(buffer);
        out.u16(offset);
        out.u16(value);
    }

    /** {@code value, .rwdata[N]} or {@code value, .refs[N] : type}; fields: global, [type], value. */
    private void globalStore(List<OperandSpec> fields) {
        OperandSpec valueSpec = fields.get(fields.size() - 1);
        int value = read(valueSpec);
        c.expect(',');
        globalAttr(storageSize(fields, 0));
        if (fields.size() == 3) {
            c.expect(':');
            out.u32(fn.module.typeOrdinal(c.type("type name")));
        }
        out.u16(value);
    }

    /**
     * Loads {@code .rwdata[%iN]} / {@code .refs[%iN] : type}; stores put the value first. Fields:
     * offset register, [type], value or result register.
     */
    private void globalIndirect(List<OperandSpec> fields, boolean store) {
        OperandSpec valueSpec = fields.get(fields.size() - 1);
        int value = 0;
        if (store) {
            value = read(valueSpec);
            c.expect(',');
        }
        boolean ref = fields.size() == 3;
        boolean bracket = c.accept(ref ? ".refs[" : ".rwdata[");
        int offset = read(fields.get(0));
        if (bracket) {
            c.expect(']');
        }
        out.u16(offset);
        if (ref) {
            c.expect(':');
            out.u32(fn.module.typeOrdinal(c.type("type name")));
        }
        out.u16(store ? value : result(valueSpec));
    }
}
