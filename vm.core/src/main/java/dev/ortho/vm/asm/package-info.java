/**
 * VMASM, IREE's textual module form: {@link dev.ortho.vm.asm.Assembler} (text to
 * {@link dev.ortho.vm.bytecode.ModuleDef}) and {@link dev.ortho.vm.asm.Disassembler} (back to
 * text, in exactly the form {@code iree-dump-module --output=disassembly} prints).
 *
 * <h2>Syntax</h2>
 * One statement per line; {@code //} and {@code #} start comments outside strings; a leading
 * {@code [%08X]} offset (as printed with {@code --bytecode_offsets}) is ignored.
 * <pre>
 * vm.module @name version 3                    // first; version defaults to 0
 * vm.type !vm.buffer                           // type table entries, in ordinal order
 * vm.import [optional] @module.fn cconv "0ri_r"
 * vm.rodata[0] = 0102AB                        // hex bytes, ordinals dense from 0
 * vm.global.i32 [private] [mutable] @g [= 0 : i32]   // also .i64 .f32 .f64; named globals
 * vm.export @name [= @function]
 * vm.func @f(%i0: i32, %i1:2: i64, %r0: !vm.ref&lt;?&gt;) -&gt; (i32) {
 * ^bb0:                                        // block labels (any ^name:)
 *   %i3 = vm.add.i32 %i0, %i0                   // results = vm.mnemonic operands
 *   %i4:5 = vm.const.i64 7                      // 64-bit values name an aligned register pair
 *   vm.call @other(%i3, %R0)                    // %RN moves a ref (only where the ISA allows)
 *   vm.cond_br %i3, ^bb1(%i3-&gt;%i6), ^bb2()      // branch operand remaps
 *   ...
 * }
 * </pre>
 * Types, imports, rodata and globals precede the first function. Argument registers are
 * sequential ({@code %i0, %i1, ...} with 64-bit pairs, refs {@code %r0, %r1, ...}); the function's
 * calling convention ({@code 0iI_r}) is derived from them. Register and block counts are derived
 * from the registers used. Instructions use the mnemonics of IREE's ISA ({@code vm/bytecode/isa})
 * and of the registered {@link dev.ortho.vm.spi.InstructionExtension}s; the operand forms are
 * those IREE prints:
 * <ul>
 * <li>calls: {@code @module.fn} / {@code @fn} (internal by name), {@code @module:N} (internal
 *     ordinal), {@code @import.name}; {@code vm.call.variadic @f segments[1, 2](...)};
 *     {@code vm.call.yieldable @f(...) -> ^bb1(results)};</li>
 * <li>globals: {@code .rwdata[byteOffset]}, {@code .refs[N] : type} or {@code @name}; stores list
 *     the value first ({@code vm.global.store.i32 %i0, .rwdata[4]});</li>
 * <li>{@code vm.select.i32 %c ? %a : %b}, {@code vm.select.ref %c ? %r0 : %r1 -> !vm.buffer},
 *     {@code vm.switch.i32 %i0[%i1, %i2] else %i3},
 *     {@code vm.br_table %i0 { default: ^bb1(), 0: ^bb2(%i1->%i2) }},
 *     {@code vm.list.alloc %i0 : !vm.list<i32>}, {@code vm.list.get.ref %r0, %i0 : !vm.buffer},
 *     {@code vm.cast.any.ref %R0 : !vm.ref<?> -> !vm.buffer},
 *     {@code vm.buffer.store.i32 %value, %r0, %i2:3}, {@code vm.fail %i0, "message"},
 *     {@code vm.trace "event"(%i0, %r1)}.</li>
 * </ul>
 *
 * <h2>Ortho extensions</h2>
 * IREE's VMASM cannot declare module dependencies or reflection attributes, and cannot read
 * back a few forms its disassembler prints. Ortho accepts (and its disassembler prints, only
 * when a module has them):
 * <ul>
 * <li>{@code vm.dependency [optional] @hal version 7}: a {@code ModuleDependencyDef} (minimum
 *     version, REQUIRED unless {@code optional}); e.g. a HAL program declares its dependency on
 *     {@code hal} so runners register that module;</li>
 * <li>{@code attributes {key = "value", ...}} at the end of the {@code vm.module} line (module
 *     attributes) and of a {@code vm.func} header before its opening brace (the function
 *     signature's attributes, which exports expose: e.g. VMVX dispatch functions declare
 *     {@code attributes {binding_count = "2", constant_count = "1", local_memory = "0"}});
 *     names that are not plain symbols are quoted, and quotes, backslashes and control
 *     characters inside attribute strings are written {@code \xHH};</li>
 * <li>{@code vm.global.ref [private] [mutable] @device : !hal.device}: a named ref global
 *     ({@code vm.global.load.ref @device : !hal.device}); named ref globals take ordinals
 *     0, 1, ... in declaration order;</li>
 * <li>{@code vm.global_storage bytes 64 refs 2}: global storage of at least this size (the
 *     disassembler prints it when a module holds more than its instructions address directly,
 *     e.g. unused or only indirectly accessed globals, which IREE's text loses);</li>
 * <li>indirect globals {@code vm.global.load.indirect.i32 .rwdata[%i0]},
 *     {@code vm.global.store.indirect.ref %r0, .refs[%i1] : !vm.buffer}; {@code vm.trace} and
 *     {@code vm.print} in their printed form; {@code vm.switch.ref %i0[%r1] else %r2 : type}
 *     (the type, which IREE's disassembler omits, is printed and required).</li>
 * </ul>
 *
 * <h2>Compatibility with IREE</h2>
 * For text IREE's {@code iree-as-module} accepts, the bytecode and every table are what it
 * produces (written with {@link dev.ortho.vm.bytecode.BytecodeArchive#write}, the archive is
 * byte-identical), including IREE's rules for derived values: register counts come from the
 * registers the body uses (argument registers count only where the runtime's power-of-two
 * rounding of the body's count could not hold them, a module IREE's verifier would reject),
 * named globals are packed by size, and types are appended in first-use order. The
 * disassembler prints what {@code iree-dump-module --output=disassembly} prints (it omits
 * {@code vm.global} directives and the move bit of {@code vm.const.ref.zero}, as IREE does).
 * Ortho also accepts what IREE's assembler rejects: the forms listed above, functions whose last
 * instruction is a branch or yield rather than {@code vm.return}/{@code vm.fail}, any
 * {@code ^name:} label, and 64-bit arguments named at the even register the runtime places them
 * in ({@code %i0: i32, %i2:3: i64}) as well as IREE's sequential spelling ({@code %i1:2}).
 *
 * <h2>Errors</h2>
 * Every syntax or semantic error is a {@link dev.ortho.base.StatusException} with code
 * INVALID_ARGUMENT and a message {@code file:line:column: expected ...} (1-based).
 */
@Export
@Version("1.0.0")
package dev.ortho.vm.asm;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
