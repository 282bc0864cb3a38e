package dev.ortho.itest;

import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.options;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.jar.JarFile;
import org.ops4j.pax.exam.Option;

/**
 * Provisioning shared by every integration test: exactly the bundles bnd resolved for
 * {@code ortho.jar} (launcher/target/export/ortho), with the launcher's start-level policy, in
 * whichever framework (Felix or Equinox) the failsafe execution put on the class path.
 */
public final class OrthoFramework {
    private OrthoFramework() {}

    /** Options for a test's {@code @Configuration} method. */
    public static Option[] provisioning() throws IOException {
        List<Option> options = new ArrayList<>();
        for (File jar : resolvedBundles()) {
            String bsn = symbolicName(jar);
            if (bsn.equals("org.apache.felix.gogo.shell")) {
                continue; // would read the forked JVM's stdin, which is failsafe's command channel
            }
            options.add(bundle(jar.toURI().toString()).startLevel(startLevel(bsn)));
        }
        options.add(junitBundles());
        // Felix only: without this, ServiceLoader inside the framework also sees slf4j-simple on
        // the test class path ("SimpleServiceProvider not a subtype") and slf4j falls back to NOP.
        options.add(frameworkProperty("felix.bootdelegation.implicit").value("false"));
        options.add(systemProperty("org.slf4j.simpleLogger.defaultLogLevel").value("warn"));
        return options(options.toArray(new Option[0]));
    }

    /**
     * Polls {@code condition} every 10 ms until it holds; fails the test naming {@code what}
     * after 10 s.
     */
    public static void awaitTrue(String what, java.util.function.BooleanSupplier condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                org.junit.Assert.fail("timed out waiting: " + what);
            }
            Thread.sleep(10);
        }
    }

    static List<File> resolvedBundles() {
        File dir = new File(System.getProperty("it.bundles.dir", "../launcher/target/export/ortho"));
        File[] jars = dir.listFiles((d, name) -> name.endsWith(".jar"));
        if (jars == null || jars.length == 0) {
            throw new IllegalStateException("no bundles in " + dir + ": build the launcher first");
        }
        Arrays.sort(jars);
        return List.of(jars);
    }

    static String symbolicName(File jar) throws IOException {
        try (JarFile file = new JarFile(jar)) {
            return file.getManifest().getMainAttributes().getValue("Bundle-SymbolicName").split(";")[0].trim();
        }
    }

    /** cnf/platform.bndrun's policy; the test probe itself starts at the default level. */
    private static int startLevel(String bsn) {
        if (bsn.startsWith("slf4j.") || bsn.startsWith("org.objectweb.asm")
                || bsn.startsWith("org.apache.aries.spifly") || bsn.startsWith("org.osgi.")) {
            return 1;
        }
        if (bsn.equals("org.apache.felix.scr") || bsn.startsWith("org.apache.felix.gogo.")
                || bsn.equals("org.apache.felix.configadmin") || bsn.equals("org.apache.felix.metatype")) {
            return 2;
        }
        return 3;
    }
}
