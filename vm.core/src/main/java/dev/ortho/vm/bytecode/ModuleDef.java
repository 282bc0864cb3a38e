package dev.ortho.vm.bytecode;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The content of an IREE bytecode module: the {@code iree.vm.BytecodeModuleDef} FlatBuffer
 * table of {@code bytecode_module_def.fbs}, field for field, with external rodata resolved.
 *
 * <p>This is the common currency of the archive reader and writer ({@link BytecodeArchive}),
 * the VMASM assembler and disassembler, the verifier and the interpreter. It is an immutable
 * value: lists are unmodifiable; {@link #bytecode()} and the rodata segments may alias the
 * archive they were read from (read-only segments), so they live as long as that archive's
 * memory. Unsigned FlatBuffer fields ({@code version}, {@code requirements},
 * {@code bytecode_version}) are carried in {@code int}s with their raw bits.
 *
 * @param name module name (required; non-empty)
 * @param version module version ({@code uint32})
 * @param requirements {@link FeatureBits} the module needs as a whole
 * @param attrs module reflection attributes in declaration order
 * @param types full names of the types the bytecode refers to by ordinal ({@code i32}, {@code !vm.buffer}, …)
 * @param dependencies declared module dependencies
 * @param imports imported functions in ordinal order
 * @param exports exported functions in ordinal order
 * @param signatures one signature per internal function, indexed like {@link #functions()}
 * @param rodata read-only data segments in ordinal order
 * @param rwdata read-write data segments in ordinal order
 * @param state global storage sizes, or null when the module declares none
 * @param functions one descriptor per internal function
 * @param bytecodeVersion {@code (major << 16) | minor}, e.g. {@code 17 << 16} for 17.0
 * @param bytecode all functions' bytecode; descriptors index into it
 * @param debug the debug database, or null
 */
public record ModuleDef(
        String name,
        int version,
        int requirements,
        List<AttrDef> attrs,
        List<String> types,
        List<DependencyDef> dependencies,
        List<ImportDef> imports,
        List<ExportDef> exports,
        List<SignatureDef> signatures,
        List<RodataDef> rodata,
        List<RwdataDef> rwdata,
        ModuleStateDef state,
        List<FunctionDescriptor> functions,
        int bytecodeVersion,
        MemorySegment bytecode,
        DebugDatabaseDef debug) {

    /** Bytecode major version this runtime reads and writes (IREE's {@code 17}). */
    public static final int BYTECODE_VERSION_MAJOR = 17;
    /** Bytecode minor version written by this runtime. */
    public static final int BYTECODE_VERSION_MINOR = 0;

    public ModuleDef {
        attrs = List.copyOf(attrs);
        types = List.copyOf(types);
        dependencies = List.copyOf(dependencies);
        imports = List.copyOf(imports);
        exports = List.copyOf(exports);
        signatures = List.copyOf(signatures);
        rodata = List.copyOf(rodata);
        rwdata = List.copyOf(rwdata);
        functions = List.copyOf(functions);
    }

    /** A {@code key = value} reflection attribute ({@code AttrDef}). */
    public record AttrDef(String key, String value) {
    }

    /** A calling convention string and its attributes ({@code FunctionSignatureDef}); cconv may be null. */
    public record SignatureDef(String callingConvention, List<AttrDef> attrs) {
        public SignatureDef {
            attrs = List.copyOf(attrs);
        }
    }

    /**
     * A declared dependency ({@code ModuleDependencyDef}).
     *
     * @param flags {@link #REQUIRED} or {@link #OPTIONAL}
     */
    public record DependencyDef(String name, int minimumVersion, int flags) {
        public static final int REQUIRED = 1;
        public static final int OPTIONAL = 2;
    }

    /**
     * An imported function ({@code ImportFunctionDef}): full name {@code module.function}.
     *
     * @param signature may be null when the archive carries none
     * @param flags {@link #REQUIRED} or {@link #OPTIONAL}
     */
    public record ImportDef(String fullName, SignatureDef signature, int flags) {
        public static final int REQUIRED = 1;
        public static final int OPTIONAL = 2;
    }

    /** An exported function ({@code ExportFunctionDef}): local name and internal function ordinal. */
    public record ExportDef(String localName, int internalOrdinal) {
    }

    /**
     * A read-only data segment ({@code RodataSegmentDef}, uncompressed).
     *
     * @param data the bytes (read-only; may alias the archive)
     * @param external true when stored after the FlatBuffer ({@code external_data_offset/length})
     *     rather than embedded
     */
    public record RodataDef(MemorySegment data, boolean external) {
    }

    /** A read-write data segment ({@code RwdataSegmentDef}). */
    public record RwdataDef(int byteSize) {
    }

    /** Global storage sizes ({@code ModuleStateDef}). */
    public record ModuleStateDef(int globalBytesCapacity, int globalRefCount) {
    }

    /**
     * Where an internal function's bytecode lives and what it needs ({@code FunctionDescriptor}
     * struct, 20 bytes in the FlatBuffer).
     */
    public record FunctionDescriptor(
            int bytecodeOffset,
            int bytecodeLength,
            int requirements,
            short reserved,
            short blockCount,
            short i32RegisterCount,
            short refRegisterCount) {
    }

    /** The {@code DebugDatabaseDef}: a location table and per-function source maps. */
    public record DebugDatabaseDef(List<LocationDef> locations, List<SourceMapDef> functions) {
        public DebugDatabaseDef {
            locations = List.copyOf(locations);
            functions = List.copyOf(functions);
        }
    }

    /** One entry of the {@code LocationTypeDef} union. */
    public sealed interface LocationDef {
    }

    /**
     * The union's {@code NONE} member: a location the compiler could not describe. IREE's
     * compiler emits one (with a null value) for locations without source information.
     */
    public record UnknownLoc() implements LocationDef {
    }

    /** {@code CallSiteLocDef}: indices into the location table. */
    public record CallSiteLoc(int callee, int caller) implements LocationDef {
    }

    /** {@code FileLineColLocDef}. */
    public record FileLineColLoc(String filename, int line, int column) implements LocationDef {
    }

    /** {@code FusedLocDef}: metadata may be null. */
    public record FusedLoc(String metadata, List<Integer> locations) implements LocationDef {
        public FusedLoc {
            locations = List.copyOf(locations);
        }
    }

    /** {@code NameLocDef}: child location index, or -1 when absent. */
    public record NameLoc(String name, int childLocation) implements LocationDef {
    }

    /** {@code FunctionSourceMapDef}: bytecode offsets mapped to location table indices. */
    public record SourceMapDef(String localName, List<BytecodeLocation> locations) {
        public SourceMapDef {
            locations = List.copyOf(locations);
        }
    }

    /** {@code BytecodeLocationDef} struct. */
    public record BytecodeLocation(int bytecodeOffset, int location) {
    }
}
