package dev.ortho.vm;

/** How a function relates to its module, with IREE's numbering ({@code iree_vm_function_linkage_t}). */
public enum Linkage {
    /** Internal to the module; may lack reflection data. */
    INTERNAL,
    /** Imported from another module; must resolve. */
    IMPORT,
    /** Exported to other modules and the host. */
    EXPORT,
    /** Imported; may stay unresolved (the module copes with absence). */
    IMPORT_OPTIONAL,
    /** Exported; lookups that miss are lightweight. */
    EXPORT_OPTIONAL;

    /** True for IMPORT and IMPORT_OPTIONAL. */
    public boolean isImport() {
        return this == IMPORT || this == IMPORT_OPTIONAL;
    }
}
