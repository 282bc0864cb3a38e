package dev.ortho.vm.bytecode;

/**
 * Source locations from a module's debug database, as IREE prints them in backtraces: the
 * location recorded at the largest bytecode offset not after the pc, formatted
 * {@code file:line:col}, names quoted, call sites ({@code callee at caller}) and fusions
 * ({@code fused[a, b]}) expanded up to a nesting depth of 8.
 *
 * <p>Not instantiable; stateless.
 */
final class SourceLocations {
    private SourceLocations() {
    }

    /**
     * The location of {@code pc} in the function whose source map is named {@code functionName},
     * or null if {@code debug} is null, has no such map or no location at or before {@code pc}.
     */
    static String find(ModuleDef.DebugDatabaseDef debug, String functionName, long pc) {
        if (debug == null) {
            return null;
        }
        for (ModuleDef.SourceMapDef map : debug.functions()) {
            if (!functionName.equals(map.localName())) {
                continue;
            }
            int best = -1;
            int bestOffset = -1;
            for (ModuleDef.BytecodeLocation l : map.locations()) {
                if (l.bytecodeOffset() <= pc && l.bytecodeOffset() > bestOffset) {
                    bestOffset = l.bytecodeOffset();
                    best = l.location();
                }
            }
            return best < 0 ? null : format(debug, best, 0);
        }
        return null;
    }

    /** IREE's location printing: {@code file:line:col}, names quoted, call sites and fusions expanded. */
    private static String format(ModuleDef.DebugDatabaseDef debug, int index, int depth) {
        if (index < 0 || index >= debug.locations().size() || depth > 8) {
            return "-";
        }
        return switch (debug.locations().get(index)) {
            case ModuleDef.UnknownLoc u -> "[unknown]";
            case ModuleDef.FileLineColLoc f -> f.filename() + ":" + f.line() + ":" + f.column();
            case ModuleDef.NameLoc n -> "\"" + n.name() + "\""
                    + (n.childLocation() >= 0 ? "(" + format(debug, n.childLocation(), depth + 1) + ")" : "");
            case ModuleDef.CallSiteLoc c -> format(debug, c.callee(), depth + 1) + " at "
                    + format(debug, c.caller(), depth + 1);
            case ModuleDef.FusedLoc f -> {
                StringBuilder b = new StringBuilder("fused[");
                for (int i = 0; i < f.locations().size(); i++) {
                    b.append(i == 0 ? "" : ", ").append(format(debug, f.locations().get(i), depth + 1));
                }
                yield b.append(']').toString();
            }
        };
    }
}
