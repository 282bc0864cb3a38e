package dev.ortho.itest.vm;

import static dev.ortho.itest.OrthoFramework.awaitTrue;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.ops4j.pax.exam.CoreOptions.composite;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.itest.OrthoFramework;
import dev.ortho.vm.Context;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.ModuleRegistry;
import dev.ortho.vm.VmList;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.bytecode.PrecompiledModule;
import dev.ortho.vm.spi.ModuleProvider;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.ServiceReference;

/**
 * Issue 16 item 4: a bundle written by {@code compile-module} (module bytes plus the classes
 * compiled from them) installed into the running framework becomes a {@link ModuleProvider} of
 * vm.core's extender, runs its stored classes, and leaves with the bundle. A bundle compiled for
 * another compiler format does not resolve; one whose module is not what its classes were
 * compiled from gets no provider.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class CompiledModuleBundleIT {
    private static final String MODULE = "aot_poly";

    @Inject
    private BundleContext context;

    @Inject
    private ModuleRegistry registry;

    @Inject
    private Instance instance;

    @Configuration
    public Option[] config() throws Exception {
        return new Option[] {
            composite(OrthoFramework.provisioning()),
            systemProperty("it.aot.good").value(CompiledModuleBundles.build("aot-good.jar", m -> m)),
            systemProperty("it.aot.future").value(CompiledModuleBundles.build("aot-future.jar", m -> m
                    .replace("(version=" + PrecompiledModule.FORMAT + ")", "(version=9.9.9)")
                    .replace("Bundle-SymbolicName: ortho.module.aot_poly", "Bundle-SymbolicName: ortho.module.aot_poly.future"))),
            systemProperty("it.aot.corrupt").value(CompiledModuleBundles.build("aot-corrupt.jar", m -> m
                    .replaceAll("(Ortho-Module: [^\\r\\n]*sha256=)\\w+", "$1" + "0".repeat(64))
                    .replace("Bundle-SymbolicName: ortho.module.aot_poly", "Bundle-SymbolicName: ortho.module.aot_poly.corrupt"))),
        };
    }

    @Test
    public void installedBundleProvidesItsModuleCompiledAndTakesItAlongWhenUninstalled() throws Exception {
        assertFalse(registry.modules().containsKey(MODULE));
        Bundle bundle = context.installBundle(System.getProperty("it.aot.good"));
        try {
            bundle.start();
            awaitTrue("provider registered", () -> registry.modules().containsKey(MODULE));
            assertEquals(Integer.valueOf(3), registry.modules().get(MODULE));
            ServiceReference<?>[] refs = bundle.getRegisteredServices();
            assertEquals("the module bundle owns its provider", 1, refs == null ? 0 : refs.length);
            assertEquals(MODULE, refs[0].getProperty(ModuleProvider.NAME));

            Module module = registry.create(instance, MODULE, 3);
            assertTrue(module.toString(), module instanceof BytecodeModule);
            assertNull("weighted_sum runs the stored class", ((BytecodeModule) module).compilationReport().get(0));
            try (Context linked = Context.create(instance, module)) {
                for (float x : new float[] {0.3f, -1.25f}) {
                    float expected = 0f;
                    for (int i = 0; i < 29; i++) {
                        expected += i * x;
                    }
                    assertEquals(Float.floatToRawIntBits(expected), Float.floatToRawIntBits(weightedSum(linked, x, 29)));
                }
            }
        } finally {
            bundle.uninstall();
        }
        awaitTrue("provider gone", () -> !registry.modules().containsKey(MODULE));
        try {
            registry.create(instance, MODULE, 0);
            fail("the module must be gone with its bundle");
        } catch (StatusException e) {
            assertEquals(StatusCode.NOT_FOUND, e.code());
        }
    }

    @Test
    public void bundleCompiledForAnotherCompilerFormatDoesNotResolve() throws Exception {
        Bundle bundle = context.installBundle(System.getProperty("it.aot.future"));
        try {
            bundle.start();
            fail("a bundle requiring compiler format 9.9.9 resolved");
        } catch (BundleException expected) {
            assertEquals(Bundle.INSTALLED, bundle.getState());
            assertTrue(expected.getMessage(), expected.getMessage().contains("dev.ortho.vm.compiler"));
        } finally {
            bundle.uninstall();
        }
        assertFalse(registry.modules().containsKey(MODULE));
    }

    @Test
    public void bundleWhoseModuleIsNotWhatItsClassesCameFromGetsNoProvider() throws Exception {
        Bundle bundle = context.installBundle(System.getProperty("it.aot.corrupt"));
        try {
            bundle.start(); // the extender adds active bundles synchronously, on the STARTED event
            assertEquals(Bundle.ACTIVE, bundle.getState());
            assertNull(bundle.getRegisteredServices());
            assertFalse(registry.modules().containsKey(MODULE));
        } finally {
            bundle.uninstall();
        }
    }

    private static float weightedSum(Context linked, float x, int n) {
        VmList in = VmList.ofVariants(2);
        in.pushF32(x);
        in.pushI32(n);
        VmList out = VmList.ofVariants(1);
        Invocation.invoke(linked, linked.resolveFunction(MODULE + ".weighted_sum"), in, out);
        return out.getF32(0);
    }
}
