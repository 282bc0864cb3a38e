package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.asm.Disassembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.spi.InstructionExtension;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@code ortho dump-module [--output=all|metadata|disassembly|flatbuffer-binary|flatbuffer-json]
 * m.vmfb}: prints a module as IREE's {@code iree-dump-module} does, with {@code --function=}
 * keeping one function of the disassembly and {@code --bytecode_offsets}, {@code --pretty},
 * {@code --ortho_directives}.
 *
 * <p>Plain Java; not thread-safe (one run at a time, as every tool).
 */
final class DumpModuleTool {
    private final Supplier<List<InstructionExtension>> extensions;
    private final Function<String, MemorySegment> archives;

    /** @param archives reads a module file as the other tools do ({@code .vmasm} assembled, {@code -} stdin) */
    DumpModuleTool(Supplier<List<InstructionExtension>> extensions, Function<String, MemorySegment> archives) {
        this.extensions = extensions;
        this.archives = archives;
    }

    int run(List<String> args, PrintStream out, PrintStream err) {
        ToolFlags flags = ToolFlags.parse("dump-module", args, Set.of("output", "function"),
                Set.of("bytecode_offsets", "pretty", "ortho_directives"));
        if (flags.positional().size() != 1) {
            err.println("Syntax: ortho dump-module [--output=...] module.vmfb");
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "expected one module file");
        }
        MemorySegment archive = archives.apply(flags.positional().get(0));
        String mode = flags.get("output", "all");
        switch (mode) {
            case "flatbuffer-binary" -> {
                MemorySegment flatBuffer = BytecodeArchive.flatBuffer(archive);
                out.write(flatBuffer.toArray(ValueLayout.JAVA_BYTE), 0, (int) flatBuffer.byteSize());
                out.flush();
                return Cli.EXIT_OK;
            }
            case "all", "metadata", "disassembly" -> {
                ModuleDef module = BytecodeArchive.read(archive);
                StringBuilder text = new StringBuilder();
                if (!mode.equals("disassembly")) {
                    text.append(ModuleMetadata.format(module, archive));
                }
                if (mode.equals("all")) {
                    text.append('\n');
                }
                if (!mode.equals("metadata")) {
                    String disassembly = new Disassembler(extensions.get()).disassemble(module,
                            flags.isSet("bytecode_offsets"), flags.isSet("ortho_directives"));
                    String filter = flags.get("function", "");
                    text.append(filter.isEmpty() ? disassembly : filterFunctions(disassembly, module, filter));
                }
                out.print(text);
                out.flush();
                return Cli.EXIT_OK;
            }
            case "flatbuffer-json" -> {
                out.print(ModuleJson.format(BytecodeArchive.read(archive), archive, flags.isSet("pretty")));
                out.flush();
                return Cli.EXIT_OK;
            }
            default -> throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "unrecognized --output= flag value '" + mode + "'");
        }
    }

    /**
     * Keeps the module header and the functions matching {@code filter} (an internal ordinal, or
     * the name IREE's dump gives the function: its first export name, else its debug name, else
     * {@code fnN}), with IREE's blank-line spacing between top-level blocks.
     */
    static String filterFunctions(String disassembly, ModuleDef module, String filter) {
        List<String> lines = disassembly.lines().toList();
        List<List<String>> blocks = new ArrayList<>();
        int headerEnd = -1;
        List<String> current = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            boolean start = line.startsWith("vm.export ") || line.startsWith("vm.func ")
                    || line.startsWith("[") && line.contains("] vm.func ");
            if (current == null && start && (i == 0 || lines.get(i - 1).isEmpty())) {
                if (headerEnd < 0) {
                    headerEnd = i;
                }
                current = new ArrayList<>();
            }
            if (current != null) {
                current.add(line);
                if (line.equals("}")) {
                    blocks.add(current);
                    current = null;
                }
            }
        }
        if (blocks.size() != module.functions().size() || current != null) {
            throw new StatusException(StatusCode.INTERNAL, "cannot split the disassembly into "
                    + module.functions().size() + " functions (found " + blocks.size() + ")");
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < (headerEnd < 0 ? lines.size() : headerEnd); i++) {
            out.append(lines.get(i)).append('\n');
        }
        Long ordinal = null;
        if (filter.chars().allMatch(Character::isDigit) && filter.length() <= 10) {
            ordinal = Long.parseLong(filter);
        }
        for (int f = 0; f < blocks.size(); f++) {
            boolean match = ordinal != null ? ordinal == f : functionName(module, f).equals(filter);
            if (!match) {
                continue;
            }
            if (out.length() > 0 && !(out.length() >= 2 && out.charAt(out.length() - 2) == '\n')) {
                out.append('\n');
            }
            for (String line : blocks.get(f)) {
                out.append(line).append('\n');
            }
        }
        return out.toString();
    }

    private static String functionName(ModuleDef module, int ordinal) {
        for (ModuleDef.ExportDef export : module.exports()) {
            if (export.internalOrdinal() == ordinal) {
                return export.localName();
            }
        }
        if (module.debug() != null && ordinal < module.debug().functions().size()) {
            String name = module.debug().functions().get(ordinal).localName();
            if (name != null && !name.isEmpty()) {
                return name;
            }
        }
        return "fn" + ordinal;
    }
}
