package dev.ortho.itest.hal;

import dev.ortho.itest.hal.loader.NegateLoader;
import dev.ortho.itest.hal.loader.NegateLoaderActivator;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import org.ops4j.pax.tinybundles.TinyBundles;

/**
 * Host-side helper of {@link ExecutableLoaderInstallIT}, used only from its {@code @Configuration}
 * method (Pax Exam runs it outside the framework, where TinyBundles is on the class path).
 */
final class LoaderBundles {
    private static final String IMPORTS = "dev.ortho.base;version=\"[1.0,2)\",dev.ortho.hal;version=\"[2.0,3)\","
            + "dev.ortho.hal.cpu.kernel;version=\"[1.1,2)\",org.osgi.framework;version=\"[1.8,2)\"";

    private LoaderBundles() {
    }

    /** Writes bundle {@code dev.ortho.itest.hal.loader} 1.0.0 to {@code target/hal-itest/} and returns its URI. */
    static String build() throws IOException {
        File dir = new File("target/hal-itest");
        Files.createDirectories(dir.toPath());
        File jar = new File(dir, "negate-loader.jar");
        try (InputStream bytes = TinyBundles.bundle()
                .addClass(NegateLoaderActivator.class)
                .addClass(NegateLoader.class)
                .setHeader("Bundle-ManifestVersion", "2")
                .setHeader("Bundle-SymbolicName", "dev.ortho.itest.hal.loader")
                .setHeader("Bundle-Version", "1.0.0")
                .setHeader("Bundle-Activator", NegateLoaderActivator.class.getName())
                .setHeader("Import-Package", IMPORTS)
                .build(TinyBundles.rawBuilder())) {
            Files.copy(bytes, jar.toPath(), StandardCopyOption.REPLACE_EXISTING);
        }
        return jar.toURI().toString();
    }
}
