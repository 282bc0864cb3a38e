package dev.ortho.vm;

import static dev.ortho.vm.Assertions2.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ContextTest {
    private final Instance instance = new Instance();

    private static NativeModule<Void> math(String name, int version, int delta) {
        return NativeModule.<Void>builder(name, version)
                .export("add", "0ii_i", (s, call) -> {
                    call.results().setI32(0, call.args().i32(0) + call.args().i32(1) + delta);
                    return CallOutcome.COMPLETED;
                })
                .export("abs", "0i_i", (s, call) -> {
                    call.results().setI32(0, Math.abs(call.args().i32(0)));
                    return CallOutcome.COMPLETED;
                })
                .build();
    }

    /** A module importing math.add and calling it from its own export. */
    private static NativeModule<Void> user(String importCconv, boolean optional) {
        return NativeModule.<Void>builder("user", 1)
                .dependency("math", 2, !optional)
                .importFunction("math.add", importCconv, optional)
                .export("twice_add", "0ii_i", (s, call) -> {
                    if (call.importFunction(0) == null) {
                        call.results().setI32(0, -1);
                        return CallOutcome.COMPLETED;
                    }
                    Call inner = call.prepareImport(0);
                    inner.arguments().setI32(0, call.args().i32(0));
                    inner.arguments().setI32(1, call.args().i32(1));
                    call.invoke(inner);
                    call.results().setI32(0, 2 * inner.results().i32(0));
                    return CallOutcome.COMPLETED;
                })
                .build();
    }

    private static int call2(Context context, String name, int a, int b) {
        VmList in = VmList.ofValues(ValueType.I32, 2);
        in.pushI32(a);
        in.pushI32(b);
        VmList out = VmList.ofVariants(1);
        Invocation.invoke(context, context.resolveFunction(name), in, out);
        return out.getI32(0);
    }

    @Test
    void exportsAreSortedAndBinarySearched() {
        NativeModule<Void> m = math("math", 2, 0);
        assertEquals(List.of("abs", "add"), m.exports().stream().map(Function::name).toList());
        assertEquals(1, m.lookupExport("add").ordinal());
        assertNull(m.lookupExport("sub"));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> NativeModule.<Void>builder("m", 1)
                .export("f", "0", (s, c) -> CallOutcome.COMPLETED)
                .export("f", "0", (s, c) -> CallOutcome.COMPLETED).build());
        assertStatus(StatusCode.UNIMPLEMENTED, () -> NativeModule.<Void>builder("m", 1)
                .export("f", "0q", (s, c) -> CallOutcome.COMPLETED));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> NativeModule.<Void>builder("m", 1)
                .importFunction("noDot", "0", false));
    }

    @Test
    void importsLinkAcrossNativeModulesAndCallThrough() {
        Context context = Context.create(instance, math("math", 2, 0), user("0ii_i", false));
        assertEquals(2 * (3 + 4), call2(context, "user.twice_add", 3, 4));
    }

    @Test
    void importsResolveToTheNewestModuleWithThatName() {
        Context context = Context.create(instance);
        context.registerModules(math("math", 2, 0));
        context.registerModules(math("math", 3, 100));
        context.registerModules(user("0ii_i", false));
        assertEquals(2 * (1 + 2 + 100), call2(context, "user.twice_add", 1, 2));
        assertEquals(103, call2(context, "math.add", 1, 2));
    }

    @Test
    void cconvMismatchFailsAtLinkTimeWithInternal() {
        Context context = Context.create(instance);
        context.registerModules(math("math", 2, 0));
        var e = assertStatus(StatusCode.INTERNAL, () -> context.registerModules(user("0i_i", false)));
        assertTrue(e.getMessage().contains("import function math.add signature mismatch"), e.getMessage());
        assertTrue(e.annotations().contains("resolving module 'user' imports"), e.toString());
        assertEquals(1, context.moduleCount(), "the failed module is not registered");
        context.registerModules(user("", false));
        assertEquals(2, context.moduleCount(), "an import without a cconv is not checked");
    }

    @Test
    void missingOrOldRequiredDependencyIsNotFoundWithIreeMessages() {
        var e = assertStatus(StatusCode.NOT_FOUND, () -> Context.create(instance, user("0ii_i", false)));
        assertEquals("required module 'math' not registered on the context", e.baseMessage());
        var old = assertStatus(StatusCode.NOT_FOUND,
                () -> Context.create(instance, math("math", 1, 0), user("0ii_i", false)));
        assertEquals("required module 'math' version mismatch; have 1 but require 2", old.baseMessage());
    }

    @Test
    void optionalImportsStayUnresolved() {
        Context context = Context.create(instance, user("0ii_i", true));
        assertEquals(-1, call2(context, "user.twice_add", 1, 2));
    }

    @Test
    void missingRequiredImportIsNotFound() {
        NativeModule<Void> empty = NativeModule.<Void>builder("math", 2).build();
        var e = assertStatus(StatusCode.NOT_FOUND, () -> Context.create(instance, empty, user("0ii_i", false)));
        assertEquals("no function `add` exported by module `math`", e.baseMessage());
    }

    @Test
    void resolveFunctionNeedsQualifiedNames() {
        Context context = Context.create(instance, math("math", 2, 0));
        assertSame(context.modules().get(0).lookupExport("add"), context.resolveFunction("math.add"));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> context.resolveFunction("add"));
        var e = assertStatus(StatusCode.NOT_FOUND, () -> context.resolveFunction("hal.add"));
        assertEquals("module 'hal' required for import 'hal.add' not registered with the context", e.baseMessage());
    }

    @Test
    void frozenContextsRejectRegistration() {
        Context context = Context.create(instance, math("math", 2, 0));
        assertTrue(context.isFrozen());
        assertStatus(StatusCode.FAILED_PRECONDITION, () -> context.registerModules(math("m2", 1, 0)));
        Context dynamic = Context.create(instance);
        dynamic.freeze();
        assertStatus(StatusCode.FAILED_PRECONDITION, () -> dynamic.registerModules(math("m2", 1, 0)));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> Context.create(instance).registerModules((Module) null));
    }

    /** Records lifecycle events of a stateful module into a shared log. */
    private static NativeModule<StringBuilder> logged(String name, List<String> log, boolean forkable) {
        return NativeModule.<StringBuilder>builder(name, 1)
                .state(ctx -> {
                    log.add(name + ".alloc");
                    return new StringBuilder(name);
                }, forkable ? (ctx, parent) -> {
                    log.add(name + ".fork");
                    return new StringBuilder(parent).append("'");
                } : null, s -> log.add(name + ".free:" + s))
                .onNotify((s, signal) -> log.add(name + ".notify:" + signal))
                .export("__init", "0v", (s, call) -> {
                    log.add(name + ".__init");
                    return CallOutcome.COMPLETED;
                })
                .export("__deinit", "0v", (s, call) -> {
                    log.add(name + ".__deinit");
                    return CallOutcome.COMPLETED;
                })
                .export("__notify", "0i", (s, call) -> {
                    log.add(name + ".__notify:" + call.args().i32(0));
                    return CallOutcome.COMPLETED;
                })
                .build();
    }

    @Test
    void stateLifecycleInitDeinitInOrder() {
        List<String> log = new ArrayList<>();
        Context context = Context.create(instance, logged("a", log, true), logged("b", log, true));
        assertEquals(List.of("a.alloc", "a.__init", "b.alloc", "b.__init"), log);
        log.clear();
        context.close();
        assertEquals(List.of("b.__deinit", "a.__deinit", "b.free:b", "a.free:a"), log);
        context.close();
        assertStatus(StatusCode.FAILED_PRECONDITION, () -> context.notify(Signal.RESUME));
    }

    @Test
    void notifyWalksForwardForResumeAndReverseForSuspend() {
        List<String> log = new ArrayList<>();
        Context context = Context.create(instance, logged("a", log, true), logged("b", log, true));
        log.clear();
        context.notify(Signal.RESUME);
        assertEquals(List.of("a.notify:RESUME", "a.__notify:0", "b.notify:RESUME", "b.__notify:0"), log);
        log.clear();
        context.notify(Signal.LOW_MEMORY);
        assertEquals(List.of("b.__notify:2", "b.notify:LOW_MEMORY", "a.__notify:2", "a.notify:LOW_MEMORY"), log);
    }

    @Test
    void forkCopiesStateAndNotifiesFork() {
        List<String> log = new ArrayList<>();
        Context parent = Context.create(instance, logged("a", log, true));
        log.clear();
        Context child = parent.fork();
        assertEquals(List.of("a.fork", "a.notify:FORK", "a.__notify:3"), log);
        assertTrue(child.isFrozen());
        log.clear();
        child.close();
        assertEquals(List.of("a.__deinit", "a.free:a'"), log, "the child owned the forked state");
    }

    @Test
    void forkOfUnforkableStateIsUnimplemented() {
        List<String> log = new ArrayList<>();
        Context parent = Context.create(instance, logged("a", log, true), logged("b", log, false));
        log.clear();
        assertStatus(StatusCode.UNIMPLEMENTED, parent::fork);
        assertEquals(List.of("a.fork", "a.free:a'"), log, "the partial child is freed");
    }

    @Test
    void failedInitUndoesTheRegistration() {
        List<String> log = new ArrayList<>();
        NativeModule<Void> bad = NativeModule.<Void>builder("bad", 1)
                .export("__init", "0v", (s, call) -> {
                    throw new dev.ortho.base.StatusException(StatusCode.ABORTED, "init failed");
                })
                .export("__deinit", "0v", (s, call) -> {
                    log.add("bad.__deinit");
                    return CallOutcome.COMPLETED;
                })
                .build();
        Context context = Context.create(instance);
        context.registerModules(logged("a", log, true));
        log.clear();
        var e = assertStatus(StatusCode.ABORTED, () -> context.registerModules(bad));
        assertTrue(e.toString().contains("native bad.__init:0 -"), e.toString());
        assertEquals(List.of("bad.__deinit"), log);
        assertEquals(1, context.moduleCount());
    }

    @Test
    void functionReflectionAttrs() {
        NativeModule<Void> m = NativeModule.<Void>builder("r", 1)
                .attr("vendor", "ortho")
                .export("f", "0", Map.of("iree.abi.declaration", "sync func @f()"), (s, c) -> CallOutcome.COMPLETED)
                .build();
        assertEquals("ortho", m.attrs().get("vendor"));
        assertEquals("sync func @f()", m.lookupExport("f").attr("iree.abi.declaration"));
        assertEquals("", m.lookupExport("f").attr("missing"));
        assertEquals("r.f", m.lookupExport("f").qualifiedName());
    }
}
