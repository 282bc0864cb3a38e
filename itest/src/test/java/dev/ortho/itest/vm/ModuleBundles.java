package dev.ortho.itest.vm;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.tinybundles.TinyBundles;

/**
 * Host-side helpers for the VM integration tests, used only from {@code @Configuration} methods
 * (which Pax Exam runs outside the framework, where TinyBundles is on the class path; the
 * framework never loads this class).
 */
final class ModuleBundles {
    /** What a module bundle needs: the VM API, the provider SPI and the framework API. */
    private static final String IMPORTS = "dev.ortho.vm;version=\"[1.0,2)\",dev.ortho.vm.spi;version=\"[1.0,2)\","
            + "org.osgi.framework;version=\"[1.8,2)\"";

    private ModuleBundles() {
    }

    /**
     * Writes bundle {@code dev.ortho.itest.vm.<module>} 1.0.0 holding only {@code activator} (and
     * naming it as Bundle-Activator) to {@code target/vm-itest/} and returns its URI.
     */
    static String build(String module, Class<?> activator) throws IOException {
        File dir = new File("target/vm-itest");
        Files.createDirectories(dir.toPath());
        File jar = new File(dir, "module-" + module + ".jar");
        try (InputStream bytes = TinyBundles.bundle()
                .addClass(activator)
                .setHeader("Bundle-ManifestVersion", "2")
                .setHeader("Bundle-SymbolicName", "dev.ortho.itest.vm." + module)
                .setHeader("Bundle-Version", "1.0.0")
                .setHeader("Bundle-Activator", activator.getName())
                .setHeader("Import-Package", IMPORTS)
                .build(TinyBundles.rawBuilder())) {
            Files.copy(bytes, jar.toPath(), StandardCopyOption.REPLACE_EXISTING);
        }
        return jar.toURI().toString();
    }
}
