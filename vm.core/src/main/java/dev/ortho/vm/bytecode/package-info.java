/**
 * IREE bytecode modules: archive and FlatBuffer reader/writer, verifier, interpreter.
 *
 * <h2>Execution</h2>
 * {@link dev.ortho.vm.bytecode.BytecodeModule#create} turns a {@link dev.ortho.vm.bytecode.ModuleDef}
 * into a {@link dev.ortho.vm.Module}: it resolves the type table against the
 * {@link dev.ortho.vm.Instance}, requires an {@link dev.ortho.vm.spi.InstructionExtension} for
 * every optional feature the module or a function needs (UNIMPLEMENTED naming the feature
 * otherwise) and verifies every function before anything runs (IREE's rules: decoding in bounds,
 * known opcodes, register ordinals and banks within the power-of-two rounded counts, even 64-bit
 * pairs, move bits only where the op takes them, callee register lists matching calling
 * conventions, block structure, branch targets on block markers; errors annotated
 * {@code at module.function+PC}).
 *
 * <p>The interpreter follows IREE's dispatch and {@code vm/ops.h} numerics: shift amounts
 * masked to the width, {@code ctlz(0)} = width, IEEE {@code remainder} for {@code rem.f*},
 * C's {@code round}/{@code lround} (halfway away from zero) for rounding and float-to-int casts
 * ({@code cast.f64.si32} rounds through float, as IREE's {@code lroundf} does), C comparison
 * semantics for ordered compares ({@code cmp.ne.*.o} is true for NaN) and
 * {@code min(l, r) = r < l ? r : l}. Where C leaves behaviour undefined, Ortho fails instead:
 * integer division by zero is INVALID_ARGUMENT, and a {@code vm.fail} with status 0 that would run
 * past the end of its function is FAILED_PRECONDITION. Internal calls map arguments and results
 * by the callee's calling convention (64-bit values as whole pairs). {@code vm.yield} and
 * yielding imports return {@link dev.ortho.vm.CallOutcome#DEFERRED} with frames kept on the
 * {@link dev.ortho.vm.Stack}; resuming continues where execution stopped, for native and bytecode
 * imports alike. Nothing is allocated per instruction.
 *
 * <h2>Compiled execution</h2>
 * With {@link dev.ortho.vm.bytecode.ExecutionMode#EAGER} (at load) or
 * {@link dev.ortho.vm.bytecode.ExecutionMode#LAZY} (after 64 external calls) in
 * {@link dev.ortho.vm.bytecode.BytecodeModule.Options}, the module translates its functions on
 * the calling thread into static methods of a hidden class defined through vm.core's own lookup
 * (unloaded with the module): i32 register slots become {@code int} locals (64-bit values the
 * interpreter's slot pairs), refs {@code RefObject} locals with the interpreter's
 * retain/move/release rules, blocks labels, internal calls direct JVM calls. The interpreter is
 * the reference: results, trap status codes, messages and backtrace frames
 * ({@code module.function:pc}) are the same; ops not emitted inline run the interpreter's own
 * helpers. Functions that yield, call yieldable or variadic functions or imports, use
 * {@code vm.break}, recurse, or call a function that stays interpreted, run in the interpreter
 * ({@link dev.ortho.vm.bytecode.BytecodeModule#compilationReport} says which and why). The
 * default is {@link dev.ortho.vm.bytecode.ExecutionMode#OFF}.
 *
 * <h2>Ahead-of-time compiled modules</h2>
 * {@link dev.ortho.vm.bytecode.PrecompiledModule} runs the same translation ahead of time
 * ({@code ortho compile-module}) and stores the module with its generated class in an OSGi
 * bundle: the module archive byte for byte ({@code ortho/module/<name>.vmfb}), the class
 * ({@code ortho/module/<name>/Compiled.class}, not on the bundle class path) and the per-function
 * table ({@code ortho/module/<name>/functions.properties}); headers {@code Ortho-Module}
 * (path, name, version, SHA-256 of the archive), {@code Ortho-Module-Compiler}
 * ({@code jvm-classfile;format=1.0.0;inlined="E0=f32,E1=f64"}), {@code Ortho-Module-Classes}
 * and {@code Ortho-Module-Functions} (path and SHA-256), {@code Require-Capability} on
 * {@code dev.ortho.vm.compiler=jvm-classfile} with exactly the runtime's format (vm.core provides
 * it, so an incompatible runtime does not resolve the bundle), {@code Import-Package} of
 * {@code dev.ortho.vm.spi}. Loading checks every hash, the format, the inline extensions and that
 * every member the class references exists, then defines the class as a hidden class through
 * vm.core's lookup: verification runs as for any module, translation never. Mismatches fail
 * (FAILED_PRECONDITION for hashes, INCOMPATIBLE for format, extensions or members); they never
 * fall back to translating. Inside a framework, vm.core's extender registers a
 * {@link dev.ortho.vm.spi.ModuleProvider} for every active bundle with an {@code Ortho-Module}
 * header, in that bundle's name.
 *
 * <p>{@link dev.ortho.vm.bytecode.ModuleTestRunner} runs a module's exports as tests with
 * IREE's conformance-suite conventions ({@code fail_} exports must fail, the native
 * {@code yieldable_test} module registered first, at most 10,000 resumes).
 */
@Export
@Version("1.1.0")
package dev.ortho.vm.bytecode;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
