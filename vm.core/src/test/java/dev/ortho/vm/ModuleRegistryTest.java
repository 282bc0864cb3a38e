package dev.ortho.vm;

import static dev.ortho.vm.Assertions2.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.base.StatusCode;
import dev.ortho.vm.spi.ModuleProvider;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModuleRegistryTest {
    private final Instance instance = new Instance();

    private static ModuleProvider provider(String name, int version) {
        return inst -> NativeModule.<Void>builder(name, version)
                .export("v", "0_i", (s, call) -> {
                    call.results().setI32(0, version);
                    return CallOutcome.COMPLETED;
                })
                .build();
    }

    private static Module app() {
        return NativeModule.<Void>builder("app", 1)
                .dependency("lib", 2, true)
                .importFunction("lib.v", "0_i", false)
                .build();
    }

    @Test
    void missingDependenciesAreCreatedFromProvidersFirst() {
        ModuleRegistry registry = new ModuleRegistry();
        registry.add("lib", 2, provider("lib", 2));
        registry.add("lib", 3, provider("lib", 3));
        assertEquals(Map.of("lib", 3), registry.modules());
        Context context = Context.create(instance);
        registry.registerWithDependencies(context, app());
        assertEquals(List.of("lib", "app"), context.modules().stream().map(Module::name).toList());
        assertEquals(3, context.modules().get(0).version(), "highest version wins");
    }

    @Test
    void removedProviderFailsNewLinksButKeepsLinkedContexts() {
        ModuleRegistry registry = new ModuleRegistry();
        ModuleProvider lib = provider("lib", 2);
        registry.add("lib", 2, lib);
        Context linked = Context.create(instance);
        registry.registerWithDependencies(linked, app());
        registry.remove(lib);
        var e = assertStatus(StatusCode.NOT_FOUND,
                () -> registry.registerWithDependencies(Context.create(instance), app()));
        assertEquals("no module provider for 'lib'", e.baseMessage());
        VmList out = VmList.ofVariants(1);
        Invocation.invoke(linked, linked.resolveFunction("lib.v"), null, out);
        assertEquals(2, out.getI32(0));
    }

    @Test
    void tooOldProviderIsNotFound() {
        ModuleRegistry registry = new ModuleRegistry();
        registry.add("lib", 1, provider("lib", 1));
        var e = assertStatus(StatusCode.NOT_FOUND,
                () -> registry.registerWithDependencies(Context.create(instance), app()));
        assertEquals("required module 'lib' version mismatch; have 1 but require 2", e.baseMessage());
    }

    @Test
    void entriesAreSortedByNameThenNewestVersionAndKeepTheirSource() {
        ModuleRegistry registry = new ModuleRegistry();
        ModuleProvider lib1 = provider("lib", 1);
        ModuleProvider lib4 = provider("lib", 4);
        ModuleProvider aux = provider("aux", 1);
        registry.add("lib", 1, lib1, "bundle one");
        registry.add("lib", 4, lib4);
        registry.add("aux", 1, aux, "bundle aux");
        assertEquals(List.of(new ModuleRegistry.Entry("aux", 1, aux, "bundle aux"),
                new ModuleRegistry.Entry("lib", 4, lib4, ""),
                new ModuleRegistry.Entry("lib", 1, lib1, "bundle one")), registry.entries());
        registry.remove(lib4);
        assertEquals(List.of("aux", "lib"), registry.entries().stream().map(ModuleRegistry.Entry::name).toList());
    }
}
