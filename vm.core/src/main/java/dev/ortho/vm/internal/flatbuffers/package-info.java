/**
 * A small hand-written FlatBuffer reader and writer for IREE's bytecode module schema.
 *
 * <p>Why not {@code flatbuffers-java}: (1) hostile input — its generated accessors trust the
 * buffer and fail with {@code IndexOutOfBoundsException} (or read garbage) on a corrupt
 * offset, while the loader must answer every malformed archive with a {@code StatusException}
 * naming the bad field, so a verifying layer would have to be written anyway;
 * {@link dev.ortho.vm.internal.flatbuffers.FlatBufferReader} checks every offset, vtable,
 * vector and string as it reads (what flatcc's generated verifier checks in IREE) and bounds
 * the work aliased objects can cause. (2) Zero copy over mapped files — it reads through
 * {@link java.lang.foreign.MemorySegment}s (no 2 GiB {@code ByteBuffer} limit, read-only
 * slices for bytecode and rodata). (3) Byte compatibility — IREE's tools build archives with
 * flatcc, whose layout (field order as added, defaults omitted, vtables deduplicated and
 * clustered after the data, NUL-padded strings, back padding to the buffer alignment) differs
 * from the Java builder's; {@link dev.ortho.vm.internal.flatbuffers.FlatBufferBuilder}
 * reproduces flatcc's layout so Ortho's assembler output is byte-identical to
 * {@code iree-as-module}. (4) No new third-party bundle in the runtime. The schema is small and
 * fixed, so the cost is two short classes plus the schema mapping in
 * {@code dev.ortho.vm.bytecode}.
 *
 * <p>Internal: not exported; used by {@link dev.ortho.vm.bytecode.BytecodeArchive}.
 */
package dev.ortho.vm.internal.flatbuffers;
