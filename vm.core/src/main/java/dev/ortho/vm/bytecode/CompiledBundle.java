package dev.ortho.vm.bytecode;

import static dev.ortho.base.MessageText.printable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * The compiled module bundle format (see the package documentation): writes and reads the jar,
 * its manifest headers and its function table. Stateless.
 */
final class CompiledBundle {
    static final String H_COMPILER = "Ortho-Module-Compiler";
    static final String H_CLASSES = "Ortho-Module-Classes";
    static final String H_FUNCTIONS = "Ortho-Module-Functions";
    /** Largest resource read (a byte array's limit). */
    static final int MAX_RESOURCE = Integer.MAX_VALUE - 8;
    /** Largest function table accepted. */
    private static final int MAX_FUNCTIONS = 1 << 20;
    /** Fixed entry time, so the same input gives the same jar. */
    private static final LocalDateTime ENTRY_TIME = LocalDateTime.of(1980, 2, 1, 0, 0);
    private static final Pattern SYMBOLIC_NAME = Pattern.compile("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*");
    private static final Pattern VERSION = Pattern.compile("\\d{1,9}(\\.\\d{1,9}(\\.\\d{1,9}(\\.[A-Za-z0-9_-]+)?)?)?");

    private CompiledBundle() {
    }

    // ---------------------------------------------------------------- writing

    static byte[] write(PrecompiledModule p, String symbolicName, String version) {
        if (symbolicName == null || !SYMBOLIC_NAME.matcher(symbolicName).matches()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "bundle symbolic name '"
                    + printable(String.valueOf(symbolicName)) + "' is not token('.'token)* with tokens of [A-Za-z0-9_-]");
        }
        if (version == null || !VERSION.matcher(version).matches()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "bundle version '"
                    + printable(String.valueOf(version)) + "' is not major[.minor[.micro[.qualifier]]]");
        }
        String name = p.def.name();
        if (name.chars().anyMatch(c -> c < 0x20 || c == 0x7F)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "module name '" + printable(name)
                    + "' has control characters, which a manifest header cannot hold");
        }
        String dir = "ortho/module/" + name.replaceAll("[^A-Za-z0-9_.-]", "_").replace("..", "__");
        String modulePath = dir + ".vmfb";
        String classPath = dir + "/Compiled.class";
        String functionsPath = dir + "/functions.properties";
        byte[] functions = functionTable(p.generated);
        byte[] classes = p.generated.classBytes();

        Manifest manifest = new Manifest();
        Attributes a = manifest.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.putValue("Bundle-ManifestVersion", "2");
        a.putValue("Bundle-SymbolicName", symbolicName);
        a.putValue("Bundle-Version", version);
        a.putValue("Bundle-Name", "Ortho compiled VM module " + name);
        a.putValue("Bundle-Description", "IREE bytecode module '" + name + "' version "
                + Integer.toUnsignedString(p.def.version()) + " with its functions compiled to JVM classes by Ortho");
        a.putValue("Created-By", "ortho compile-module");
        // The provider service this bundle gets is of vm.core's SPI: wire to it.
        a.putValue("Import-Package", "dev.ortho.vm.spi;version=\"[1.0,2)\"");
        a.putValue("Require-Capability", PrecompiledModule.CAPABILITY_NAMESPACE + ";filter:=\"(&("
                + PrecompiledModule.CAPABILITY_NAMESPACE + "=" + PrecompiledModule.COMPILER + ")(version="
                + PrecompiledModule.FORMAT + "))\",osgi.ee;filter:=\"(&(osgi.ee=JavaSE)(version>="
                + Runtime.version().feature() + "))\"");
        a.putValue("Provide-Capability", "dev.ortho.vm.module;dev.ortho.vm.module=" + quote(name) + ";version:Long="
                + Integer.toUnsignedString(p.def.version()));
        a.putValue(PrecompiledModule.HEADER_MODULE, modulePath + ";name=" + quote(name) + ";version="
                + Integer.toUnsignedString(p.def.version()) + ";sha256=" + p.moduleSha256);
        a.putValue(H_COMPILER, PrecompiledModule.COMPILER + ";format=" + PrecompiledModule.FORMAT + ";inlined="
                + quote(p.inlined));
        if (classes != null) {
            a.putValue(H_CLASSES, classPath + ";sha256=" + PrecompiledModule.sha256(classes));
        }
        a.putValue(H_FUNCTIONS, functionsPath + ";sha256=" + PrecompiledModule.sha256(functions));

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            put(zip, "META-INF/", null);
            ByteArrayOutputStream mf = new ByteArrayOutputStream();
            manifest.write(mf);
            put(zip, JarFile.MANIFEST_NAME, mf.toByteArray());
            put(zip, modulePath, p.archive);
            if (classes != null) {
                put(zip, classPath, classes);
            }
            put(zip, functionsPath, functions);
        } catch (IOException e) {
            throw new StatusException(StatusCode.INTERNAL, "cannot write bundle in memory: " + e.getMessage(), e);
        }
        return bytes.toByteArray();
    }

    private static void put(ZipOutputStream zip, String path, byte[] data) throws IOException {
        ZipEntry e = new ZipEntry(path);
        e.setTimeLocal(ENTRY_TIME);
        zip.putNextEntry(e);
        if (data != null) {
            zip.write(data);
        }
        zip.closeEntry();
    }

    /** {@code count}, {@code max.results}, then per function {@code compiled.N=<stack bytes>} or {@code interpreted.N=<reason>}. */
    private static byte[] functionTable(Compiler.Generated g) {
        StringBuilder b = new StringBuilder("# Ortho compiled module: per internal function, compiled (its stack bound"
                + " in bytes) or interpreted (why)\n");
        b.append("count=").append(g.compiled().length).append('\n');
        b.append("max.results=").append(g.maxResults()).append('\n');
        for (int i = 0; i < g.compiled().length; i++) {
            if (g.compiled()[i]) {
                b.append("compiled.").append(i).append('=').append(g.maxBytes()[i]).append('\n');
            } else {
                b.append("interpreted.").append(i).append('=').append(escape(String.valueOf(g.reasons()[i])))
                        .append('\n');
            }
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A properties value: backslash, line breaks and non-ASCII escaped. */
    private static String escape(String v) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            switch (c) {
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                default -> {
                    if (c < 0x20 || c > 0x7E || (i == 0 && c == ' ')) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }

    private static String quote(String v) {
        return "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    // ---------------------------------------------------------------- reading

    static PrecompiledModule read(byte[] jar) {
        Map<String, byte[]> entries = new HashMap<>();
        Manifest manifest = null;
        try (ZipInputStream zip = new ZipInputStream(new ByteArrayInputStream(jar))) {
            for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
                if (e.isDirectory()) {
                    continue;
                }
                byte[] data = readCapped(zip, e.getName());
                if (e.getName().equals(JarFile.MANIFEST_NAME)) {
                    manifest = new Manifest(new ByteArrayInputStream(data));
                } else {
                    entries.put(e.getName(), data);
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "not a readable jar: " + e.getMessage(), e);
        }
        if (manifest == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "jar has no " + JarFile.MANIFEST_NAME);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        manifest.getMainAttributes().forEach((k, v) -> headers.put(k.toString(), v.toString()));
        String bsn = headers.getOrDefault("Bundle-SymbolicName", "?").split(";")[0].trim();
        String bundle = "'" + printable(bsn) + " " + printable(headers.getOrDefault("Bundle-Version", "0.0.0")) + "'";
        return read(bundle, headers, path -> {
            byte[] data = entries.get(path);
            return data == null ? null : new ByteArrayInputStream(data);
        });
    }

    static PrecompiledModule read(String bundle, Map<String, String> headers, PrecompiledModule.Resources resources) {
        try {
            return readChecked(bundle, headers, resources);
        } catch (StatusException e) {
            throw e.annotate("reading compiled module bundle " + bundle);
        }
    }

    private static PrecompiledModule readChecked(String bundle, Map<String, String> headers,
                                                 PrecompiledModule.Resources resources) {
        Map<String, String> module = header(headers, PrecompiledModule.HEADER_MODULE, true);
        Map<String, String> compiler = header(headers, H_COMPILER, true);
        Map<String, String> classes = header(headers, H_CLASSES, false);
        Map<String, String> functions = header(headers, H_FUNCTIONS, true);
        String name = attribute(module, PrecompiledModule.HEADER_MODULE, "name");
        String where = "module '" + printable(name) + "': ";
        String compilerName = attribute(compiler, H_COMPILER, "");
        String format = attribute(compiler, H_COMPILER, "format");
        if (!compilerName.equals(PrecompiledModule.COMPILER) || !format.equals(PrecompiledModule.FORMAT)) {
            throw new StatusException(StatusCode.INCOMPATIBLE, where + "compiled by VM compiler '"
                    + printable(compilerName) + "' format " + printable(format) + ", but this runtime runs '"
                    + PrecompiledModule.COMPILER + "' format " + PrecompiledModule.FORMAT);
        }
        byte[] archive = resource(resources, module, PrecompiledModule.HEADER_MODULE, where);
        byte[] table = resource(resources, functions, H_FUNCTIONS, where);
        byte[] classBytes = classes == null ? null : resource(resources, classes, H_CLASSES, where);
        String moduleSha = PrecompiledModule.sha256(archive);
        ModuleDef def = BytecodeArchive.read(archive);
        if (!name.equals(def.name()) || !attribute(module, PrecompiledModule.HEADER_MODULE, "version")
                .equals(Integer.toUnsignedString(def.version()))) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, where + "the stored module is '"
                    + printable(def.name()) + "' version " + Integer.toUnsignedString(def.version())
                    + ", not what " + PrecompiledModule.HEADER_MODULE + " names");
        }
        Compiler.Generated generated = parseTable(table, classBytes, where);
        return new PrecompiledModule(archive, def, moduleSha, attribute(compiler, H_COMPILER, "inlined"), generated,
                bundle);
    }

    /** Reads the resource a header names and checks its recorded SHA-256 (the module's: what the classes came from). */
    private static byte[] resource(PrecompiledModule.Resources resources, Map<String, String> header, String headerName,
                                   String where) {
        String path = attribute(header, headerName, "");
        String recorded = attribute(header, headerName, "sha256");
        byte[] data;
        try (InputStream in = resources.open(path)) {
            if (in == null) {
                throw new StatusException(StatusCode.NOT_FOUND, where + "resource '" + printable(path) + "' named by "
                        + headerName + " is missing");
            }
            data = readCapped(in, path);
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, where + "cannot read resource '" + printable(path) + "': "
                    + e.getMessage(), e);
        }
        String actual = PrecompiledModule.sha256(data);
        if (!actual.equals(recorded)) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, where + printable(path) + " has SHA-256 " + actual
                    + " but " + headerName + " records " + printable(recorded)
                    + (headerName.equals(PrecompiledModule.HEADER_MODULE)
                    ? " (the module its classes were compiled from)" : ""));
        }
        return data;
    }

    private static byte[] readCapped(InputStream in, String path) throws IOException {
        byte[] data = in.readNBytes(MAX_RESOURCE);
        if (data.length == MAX_RESOURCE && in.read() >= 0) {
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "resource '" + printable(path)
                    + "' is larger than " + MAX_RESOURCE + " bytes");
        }
        return data;
    }

    private static Compiler.Generated parseTable(byte[] table, byte[] classBytes, String where) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(new String(table, StandardCharsets.UTF_8)));
        } catch (IOException | IllegalArgumentException e) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, where + "malformed function table: " + e.getMessage(), e);
        }
        int count = (int) number(p, "count", 0, MAX_FUNCTIONS, where);
        int maxResults = (int) number(p, "max.results", 1, 0xFFFF, where);
        boolean[] compiled = new boolean[count];
        long[] maxBytes = new long[count];
        String[] reasons = new String[count];
        int compiledCount = 0;
        for (int i = 0; i < count; i++) {
            String reason = p.getProperty("interpreted." + i);
            if (p.getProperty("compiled." + i) != null) {
                if (reason != null) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, where + "function table lists function " + i
                            + " as both compiled and interpreted");
                }
                compiled[i] = true;
                compiledCount++;
                maxBytes[i] = number(p, "compiled." + i, 0, Long.MAX_VALUE / 2, where);
            } else if (reason != null) {
                reasons[i] = reason;
            } else {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, where + "function table has no entry for function "
                        + i + " (compiled." + i + " or interpreted." + i + ")");
            }
        }
        if (p.size() != 2 + count) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, where + "function table has " + p.size()
                    + " entries, expected " + (2 + count) + " for " + count + " functions");
        }
        if (compiledCount > 0 && classBytes == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, where + compiledCount
                    + " compiled functions but no " + H_CLASSES + " header");
        }
        String[] untyped = new String[count];
        for (int f = 0; f < count; f++) {
            untyped[f] = compiled[f] ? "register representation not recorded in a compiled bundle" : null;
        }
        int[][] stats = Compiler.methodStats(classBytes, count);
        return new Compiler.Generated(classBytes, compiled, maxBytes, maxResults, reasons, untyped, stats[0], stats[1],
                new long[count]);
    }

    private static long number(Properties p, String key, long min, long max, String where) {
        String v = p.getProperty(key);
        try {
            long n = Long.parseLong(v == null ? "" : v.trim());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, where + "function table entry " + key + " is '"
                + printable(String.valueOf(v)) + "', expected an integer in [" + min + ", " + max + "]");
    }

    // ---------------------------------------------------------------- headers

    /**
     * Parses a one-clause header {@code value;key=value;key="quoted \"value\""}: the clause's
     * first part is stored under the empty key. Null if absent and not {@code required}.
     */
    static Map<String, String> header(Map<String, String> headers, String name, boolean required) {
        String text = headers.get(name);
        if (text == null) {
            if (required) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "manifest has no " + name + " header");
            }
            return null;
        }
        Map<String, String> out = new LinkedHashMap<>();
        int i = 0;
        String key = "";
        while (true) {
            StringBuilder value = new StringBuilder();
            i = skipSpaces(text, i);
            if (i < text.length() && text.charAt(i) == '"') {
                i++;
                while (i < text.length() && text.charAt(i) != '"') {
                    char c = text.charAt(i++);
                    if (c == '\\' && i < text.length()) {
                        c = text.charAt(i++);
                    }
                    value.append(c);
                }
                if (i >= text.length()) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, name + " header has an unterminated quote: '"
                            + printable(text) + "'");
                }
                i = skipSpaces(text, i + 1);
            } else {
                while (i < text.length() && text.charAt(i) != ';') {
                    value.append(text.charAt(i++));
                }
            }
            if (out.putIfAbsent(key, value.toString().strip()) != null) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, name + " header repeats '" + printable(key) + "'");
            }
            if (i >= text.length()) {
                return out;
            }
            if (text.charAt(i) != ';') {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, name + " header: expected ';' at " + i + " in '"
                        + printable(text) + "'");
            }
            int eq = text.indexOf('=', i + 1);
            if (eq < 0) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, name + " header: parameter without '=' in '"
                        + printable(text) + "'");
            }
            key = text.substring(i + 1, eq).strip();
            i = eq + 1;
        }
    }

    private static int skipSpaces(String text, int i) {
        while (i < text.length() && text.charAt(i) == ' ') {
            i++;
        }
        return i;
    }

    private static String attribute(Map<String, String> header, String name, String key) {
        String v = header.get(key);
        if (v == null || (key.isEmpty() && v.isEmpty())) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, name + " header has no "
                    + (key.isEmpty() ? "value" : "'" + key + "' parameter"));
        }
        return v;
    }
}
