package dev.ortho.vm.bytecode;

import dev.ortho.vm.bytecode.ModuleDef.ExportDef;
import dev.ortho.vm.bytecode.ModuleDef.FunctionDescriptor;
import dev.ortho.vm.bytecode.ModuleDef.ImportDef;
import dev.ortho.vm.bytecode.ModuleDef.ModuleStateDef;
import dev.ortho.vm.bytecode.ModuleDef.RodataDef;
import dev.ortho.vm.bytecode.ModuleDef.SignatureDef;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Test helper: builds {@link ModuleDef}s from a line-oriented spec that names what IREE's
 * assembler writes ({@code name}, {@code version}, {@code requirements}, {@code type},
 * {@code import <optional> <name> <cconv>}, {@code function <offset> <length> <requirements>
 * <blocks> <i32> <ref> <cconv>}, {@code export <name> <ordinal>}, {@code rodata [hex]},
 * {@code state <bytes> <refs>}, {@code bytecode <hex>}).
 */
final class ModuleDefs {
    private ModuleDefs() {
    }

    static ModuleDef fromSpec(String spec) {
        String name = "";
        int version = 0;
        int requirements = 0;
        List<String> types = new ArrayList<>();
        List<ImportDef> imports = new ArrayList<>();
        List<FunctionDescriptor> functions = new ArrayList<>();
        List<SignatureDef> signatures = new ArrayList<>();
        List<ExportDef> exports = new ArrayList<>();
        List<RodataDef> rodata = new ArrayList<>();
        ModuleStateDef state = null;
        byte[] bytecode = new byte[0];
        for (String line : spec.split("\n")) {
            String[] w = line.stripLeading().split(" ", -1);
            switch (w[0]) {
                case "name" -> name = w[1];
                case "version" -> version = Integer.parseInt(w[1]);
                case "requirements" -> requirements = Integer.parseInt(w[1]);
                case "type" -> types.add(w[1]);
                case "import" -> imports.add(new ImportDef(w[2], new SignatureDef(w[3], List.of()),
                        w[1].equals("1") ? ImportDef.OPTIONAL : ImportDef.REQUIRED));
                case "function" -> {
                    functions.add(new FunctionDescriptor(Integer.parseInt(w[1]), Integer.parseInt(w[2]),
                            Integer.parseInt(w[3]), (short) 0, Short.parseShort(w[4]), Short.parseShort(w[5]),
                            Short.parseShort(w[6])));
                    signatures.add(new SignatureDef(w[7], List.of()));
                }
                case "export" -> exports.add(new ExportDef(w[1], Integer.parseInt(w[2])));
                case "rodata" -> rodata.add(new RodataDef(MemorySegment.ofArray(
                        w.length > 1 ? HexFormat.of().parseHex(w[1]) : new byte[0]), false));
                case "state" -> state = new ModuleStateDef(Integer.parseInt(w[1]), Integer.parseInt(w[2]));
                case "bytecode" -> bytecode = w.length > 1 ? HexFormat.of().parseHex(w[1]) : new byte[0];
                default -> throw new IllegalArgumentException(line);
            }
        }
        return new ModuleDef(name, version, requirements, List.of(), types, List.of(), imports, exports,
                signatures, rodata, List.of(), state, functions, ModuleDef.BYTECODE_VERSION_MAJOR << 16,
                MemorySegment.ofArray(bytecode), null);
    }

    /** A small valid module: one export {@code main} with cconv {@code 0_v} over 4 bytes of bytecode. */
    static ModuleDef minimal(String name) {
        return fromSpec("name " + name + "\nfunction 0 4 0 1 0 0 0_v\nexport main 0\nbytecode 00010203");
    }
}
