package dev.ortho.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import dev.ortho.hal.DriverRegistry;
import java.io.File;
import java.util.HashSet;
import java.util.Set;
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
import org.osgi.framework.Constants;
import org.osgi.framework.Version;
import org.osgi.framework.namespace.PackageNamespace;
import org.osgi.framework.wiring.BundleCapability;
import org.osgi.framework.wiring.BundleRevision;

/** Every bundle ortho.jar ships resolves and starts, in Felix and in Equinox. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class BundlesIT {
    private static final String[] ORTHO_BUNDLES = {"dev.ortho.base", "dev.ortho.task.scheduler",
        "dev.ortho.hal.api", "dev.ortho.vm.core", "dev.ortho.vm.task", "dev.ortho.modules.hal", "dev.ortho.modules.io.parameters",
        "dev.ortho.hal.driver.cpu",
        "dev.ortho.hal.driver.validation", "dev.ortho.hal.driver.remote", "dev.ortho.launcher"};

    @Inject
    private BundleContext context;

    @Inject
    private DriverRegistry registry; // waits for the hal.api component to publish it

    @Configuration
    public Option[] config() throws Exception {
        return OrthoFramework.provisioning();
    }

    @Test
    public void runsInTheFrameworkThisExecutionSelected() {
        assertEquals(System.getProperty("it.framework"), context.getBundle(0).getSymbolicName());
    }

    @Test
    public void everyOrthoBundleIsInstalledAndActive() {
        Set<String> active = new HashSet<>();
        for (Bundle bundle : context.getBundles()) {
            if (bundle.getSymbolicName().startsWith("dev.ortho.") && bundle.getState() == Bundle.ACTIVE) {
                active.add(bundle.getSymbolicName());
            }
        }
        for (String bsn : ORTHO_BUNDLES) {
            assertTrue(bsn + " is not active in " + frameworkName() + "; active: " + active,
                    active.contains(bsn));
        }
    }

    @Test
    public void everyBundleOfThePlatformIsActive() {
        for (Bundle bundle : context.getBundles()) {
            if (bundle.getHeaders().get(Constants.FRAGMENT_HOST) == null) {
                assertEquals(bundle.getSymbolicName() + " state in " + frameworkName(),
                        Bundle.ACTIVE, bundle.getState());
            }
        }
    }

    @Test
    public void orthoExportsAreVersioned() {
        int exports = 0;
        for (Bundle bundle : context.getBundles()) {
            if (!bundle.getSymbolicName().startsWith("dev.ortho.")) {
                continue;
            }
            BundleRevision revision = bundle.adapt(BundleRevision.class);
            for (BundleCapability export : revision.getDeclaredCapabilities(BundleRevision.PACKAGE_NAMESPACE)) {
                Version version = (Version) export.getAttributes().get(PackageNamespace.CAPABILITY_VERSION_ATTRIBUTE);
                assertTrue(bundle.getSymbolicName() + " exports " + export.getAttributes()
                        .get(BundleRevision.PACKAGE_NAMESPACE) + " at " + version + ", not a released version (>= 1.0.0)",
                        version != null && version.compareTo(new Version(1, 0, 0)) >= 0);
                exports++;
            }
        }
        assertTrue("no dev.ortho exports found", exports >= 10);
    }

    @Test
    public void driverRegistryServiceIsPublished() {
        assertNotNull(context.getServiceReference(DriverRegistry.class));
        assertNotNull(registry.enumerate());
    }

    @Test
    public void testedBundlesAreTheOnesOrthoJarShips() throws Exception {
        // guards the provisioning itself: the launcher's export must contain every Ortho bundle
        Set<String> shipped = new HashSet<>();
        for (File jar : OrthoFramework.resolvedBundles()) {
            shipped.add(OrthoFramework.symbolicName(jar));
        }
        for (String bsn : ORTHO_BUNDLES) {
            assertTrue(bsn + " missing from " + System.getProperty("it.bundles.dir"), shipped.contains(bsn));
        }
    }

    private String frameworkName() {
        Bundle system = context.getBundle(0);
        return system.getSymbolicName() + " " + system.getVersion();
    }
}
