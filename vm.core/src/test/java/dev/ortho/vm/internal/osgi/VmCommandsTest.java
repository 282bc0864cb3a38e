package dev.ortho.vm.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.vm.AbstractRefObject;
import dev.ortho.vm.Instance;
import dev.ortho.vm.ModuleRegistry;
import dev.ortho.vm.NativeModule;
import dev.ortho.vm.RefType;
import dev.ortho.vm.spi.ModuleProvider;
import java.lang.reflect.Proxy;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.Version;

class VmCommandsTest {
    private static final ModuleProvider NEVER_CREATES = instance -> {
        throw new AssertionError("listing must not create modules");
    };

    @Test
    void modulesListsProvidersByNameThenNewestVersionWithTheirSource() {
        ModuleRegistry registry = new ModuleRegistry();
        registry.add("hal", 7, NEVER_CREATES, "dev.ortho.modules.hal 1.0.0 [12]");
        registry.add("custom_module", 1, NEVER_CREATES, "");
        registry.add("custom_module", 3, NEVER_CREATES, "example.custom 2.1.0 [40]");
        assertEquals("""
                module         version  bundle
                custom_module        3  example.custom 2.1.0 [40]
                custom_module        1  -
                hal                  7  dev.ortho.modules.hal 1.0.0 [12]""",
                new VmCommands(registry).modules());
    }

    @Test
    void modulesSaysSoWhenNothingIsInstalled() {
        assertEquals("no VM module providers are installed", new VmCommands(new ModuleRegistry()).modules());
    }

    @Test
    void modulesReflectsProvidersRemovedFromTheRegistry() {
        ModuleRegistry registry = new ModuleRegistry();
        VmCommands commands = new VmCommands(registry);
        registry.add("a", 1, NEVER_CREATES, "x 1.0.0 [5]");
        registry.remove(NEVER_CREATES);
        assertEquals("no VM module providers are installed", commands.modules());
    }

    @Test
    void typesListsEachInstanceServiceWithItsRegisteredTypes() {
        Instance shared = new Instance();
        shared.registerType(RefType.of("hal.buffer", Payload.class));
        Instance other = new Instance();
        VmCommands commands = new VmCommands(new ModuleRegistry());
        commands.addInstance(other, Map.of("service.id", 9L));
        commands.addInstance(shared, Map.of("service.id", 3L));
        assertEquals("""
                instance 3: 3 types
                  hal.buffer  dev.ortho.vm.internal.osgi.VmCommandsTest$Payload
                  vm.buffer   dev.ortho.vm.VmBuffer
                  vm.list     dev.ortho.vm.VmList
                instance 9: 2 types
                  vm.buffer  dev.ortho.vm.VmBuffer
                  vm.list    dev.ortho.vm.VmList""", commands.types());

        commands.removeInstance(other, Map.of("service.id", 9L));
        shared.unregisterType(RefType.of("hal.buffer", Payload.class));
        assertEquals("""
                instance 3: 2 types
                  vm.buffer  dev.ortho.vm.VmBuffer
                  vm.list    dev.ortho.vm.VmList""", commands.types());
    }

    @Test
    void typesSaysSoWhenNoInstanceIsRegistered() {
        assertEquals("no VM instance is registered", new VmCommands(new ModuleRegistry()).types());
    }

    @Test
    void registryComponentRecordsTheProvidingBundleAndForgetsRemovedProviders() {
        ModuleRegistryComponent component = new ModuleRegistryComponent();
        ModuleProvider provider = instance -> NativeModule.<Void>builder("a", 2).build();
        component.addProvider(provider, reference(Map.of(ModuleProvider.NAME, "a", ModuleProvider.VERSION, 2),
                bundle("example.a", "1.2.3", 17)));
        component.addProvider(instance -> null, reference(Map.of(ModuleProvider.VERSION, 1), bundle("nameless", "1", 18)));
        assertEquals("""
                module  version  bundle
                a             2  example.a 1.2.3 [17]""", new VmCommands(component).modules());
        assertEquals("a", component.create(new Instance(), "a", 2).name());

        component.removeProvider(provider);
        assertEquals("no VM module providers are installed", new VmCommands(component).modules());
    }

    /** A ref type's Java class for the listing. */
    static final class Payload extends AbstractRefObject {
        @Override
        public RefType refType() {
            return RefType.VM_BUFFER;
        }

        @Override
        protected void destroy() {
        }
    }

    @SuppressWarnings("unchecked")
    private static ServiceReference<ModuleProvider> reference(Map<String, Object> properties, Bundle bundle) {
        return (ServiceReference<ModuleProvider>) Proxy.newProxyInstance(VmCommandsTest.class.getClassLoader(),
                new Class<?>[] {ServiceReference.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getProperty" -> properties.get((String) args[0]);
                    case "getBundle" -> bundle;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static Bundle bundle(String symbolicName, String version, long id) {
        return (Bundle) Proxy.newProxyInstance(VmCommandsTest.class.getClassLoader(),
                new Class<?>[] {Bundle.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getSymbolicName" -> symbolicName;
                    case "getVersion" -> Version.parseVersion(version);
                    case "getBundleId" -> id;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
