package dev.ortho.vm.bytecode;

import dev.ortho.base.StatusException;
import dev.ortho.vm.Context;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.VmList;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.internal.testing.YieldableTestModule;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.ArrayList;
import java.util.List;

/** Assembles VMASM text, loads it as a {@link BytecodeModule} in a context and invokes exports. */
final class VmasmFixture implements AutoCloseable {
    static final List<InstructionExtension> EXTENSIONS = List.of(new ExtF32Extension(), new ExtF64Extension());
    /**
     * Options of the modules tests load: system property {@code ortho.test.vm_compile}
     * ({@code off}/{@code lazy}/{@code eager}) runs the same tests compiled (vm.core's pom runs
     * the VM op and conformance tests a second time with {@code eager}).
     */
    static final BytecodeModule.Options OPTIONS = BytecodeModule.Options.DEFAULT.withExecution(
            ExecutionMode.valueOf(System.getProperty("ortho.test.vm_compile", "off").toUpperCase(java.util.Locale.ROOT)));

    /**
     * System property {@code ortho.test.vm_split}: the method size from which the modules tests
     * load split their compiled functions (vm.core's pom runs the compiled tests a third time with
     * a limit that splits most); a per-module value ({@link #create}), never a global one.
     */
    static final int METHOD_LIMIT = Integer.getInteger("ortho.test.vm_split", MethodSplitter.C1_METHOD_LIMIT);

    /** A module as the tests load it: {@link #OPTIONS}, split at {@link #METHOD_LIMIT}. */
    static BytecodeModule create(Instance instance, ModuleDef def, List<? extends InstructionExtension> extensions) {
        return BytecodeModule.create(instance, def, extensions, OPTIONS, METHOD_LIMIT);
    }

    final Instance instance = new Instance();
    final BytecodeModule module;
    final Context context;

    VmasmFixture(String source, Module... dependencies) {
        module = create(instance, new Assembler(EXTENSIONS).assemble(source, "test.vmasm"), EXTENSIONS);
        List<Module> modules = new ArrayList<>();
        modules.add(YieldableTestModule.create());
        modules.addAll(List.of(dependencies));
        modules.add(module);
        context = Context.create(instance, modules.toArray(new Module[0]));
    }

    /** Module text with {@code functions} after a header declaring the usual types. */
    static String module(String functions) {
        return """
                vm.module @t version 0
                vm.type i8
                vm.type i16
                vm.type i32
                vm.type i64
                vm.type f32
                vm.type f64
                vm.type !vm.buffer
                vm.type !vm.list<?>
                vm.rodata[0] = 0102030405060708
                """ + functions;
    }

    /** Invokes {@code t.name} with values ({@link Integer}, {@link Long}, {@link Float}, {@link Double}). */
    VmList call(String name, Object... args) {
        VmList in = VmList.ofVariants(args.length);
        for (Object a : args) {
            switch (a) {
                case Integer i -> in.pushI32(i);
                case Long l -> in.pushI64(l);
                case Float f -> in.pushF32(f);
                case Double d -> in.pushF64(d);
                default -> throw new IllegalArgumentException(String.valueOf(a));
            }
        }
        VmList out = VmList.ofVariants(4);
        Invocation.invoke(context, context.resolveFunction("t." + name), in, out);
        return out;
    }

    /** The failure of invoking {@code t.name}, or null if it succeeded. */
    StatusException failure(String name, Object... args) {
        try {
            call(name, args);
            return null;
        } catch (StatusException e) {
            return e;
        }
    }

    @Override
    public void close() {
        context.close();
    }
}
