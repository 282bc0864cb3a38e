package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.remote.internal.client.RemoteDriver;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15 section 1: TLS with the JDK's SSLEngine. Certificates are made at test time by the
 * {@code keytool} of the JDK running the tests: a self-signed server certificate for 127.0.0.1,
 * another one nobody trusts, and a client certificate for mutual TLS.
 */
class Issue15TlsTest {
    private static final String PASSWORD = "test-password";
    @TempDir
    static Path dir;
    private static Path passwordFile;

    private static void keytool(String... args) throws IOException, InterruptedException {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        List<String> command = new java.util.ArrayList<>(List.of(keytool.toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException("keytool " + args[0] + " failed: " + output);
        }
    }

    /** A PKCS12 keystore {@code name}.p12 with a self-signed EC certificate, and the certificate as {@code name}.pem. */
    private static void selfSigned(String name, String subject) throws IOException, InterruptedException {
        Path store = dir.resolve(name + ".p12");
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + subject,
                "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", PASSWORD, "-keypass", PASSWORD);
        keytool("-exportcert", "-rfc", "-alias", name, "-keystore", store.toString(), "-storepass", PASSWORD,
                "-file", dir.resolve(name + ".pem").toString());
    }

    @BeforeAll
    static void certificates() throws Exception {
        passwordFile = dir.resolve("password.txt");
        Files.writeString(passwordFile, PASSWORD + "\n", StandardCharsets.UTF_8);
        selfSigned("server", "127.0.0.1");
        selfSigned("stranger", "127.0.0.1");
        selfSigned("client", "ortho-test-client");
    }

    private static DeviceServer server(Path clientCa) {
        byte[] token = Loopback.TOKEN.getBytes(StandardCharsets.UTF_8);
        var registry = Loopback.localSyncRegistry();
        return DeviceServer.start(() -> registry.createDevice("local-sync://"), ServerOptions.defaults(token)
                .withListen(new InetSocketAddress("127.0.0.1", 0), false)
                .withTls(ServerTls.load(dir.resolve("server.p12"), passwordFile, clientCa)));
    }

    private static Device connect(DeviceServer server, String params) {
        try (RemoteDriver driver = new RemoteDriver(name -> Loopback.TOKEN)) {
            return driver.createDevice(DeviceUri.parse("remote://127.0.0.1:" + server.address().getPort()
                    + (params.isEmpty() ? "" : "?" + params)));
        }
    }

    private static void assertUnavailable(DeviceServer server, String params) {
        StatusException e = assertThrows(StatusException.class, () -> connect(server, params).close());
        assertEquals(StatusCode.UNAVAILABLE, e.code(), e.toString());
    }

    @Test
    void aClientThatTrustsTheServerCertificateIsServedOverTls() {
        try (DeviceServer server = server(null);
                Device device = connect(server, "tls=1&trust=" + dir.resolve("server.pem"))) {
            TrustTest.assertServes(device);
            // a transfer of several TLS records and transfer chunks each way
            byte[] data = new byte[6 << 20];
            new Random(15).nextBytes(data);
            try (Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), data.length)) {
                buffer.write(0, MemorySegment.ofArray(data));
                byte[] back = new byte[data.length];
                buffer.read(0, MemorySegment.ofArray(back));
                assertArrayEquals(data, back);
            }
        }
    }

    @Test
    void plainClientsAndClientsTrustingAnotherCertificateAreRefused() {
        try (DeviceServer server = server(null)) {
            assertUnavailable(server, "deadline_ms=2000"); // plain TCP against TLS
            assertUnavailable(server, "tls=1&trust=" + dir.resolve("stranger.pem"));
            assertUnavailable(server, "tls=1"); // the JDK's CAs do not know a self-signed certificate
            try (Device device = connect(server, "tls=1&trust=" + dir.resolve("server.pem"))) {
                TrustTest.assertServes(device); // the refusals left the server serving
            }
        }
    }

    @Test
    void aServerThatRequiresClientCertificatesServesOnlyClientsWithOne() {
        try (DeviceServer server = server(dir.resolve("client.pem"))) {
            String trust = "tls=1&trust=" + dir.resolve("server.pem");
            assertUnavailable(server, trust);
            assertUnavailable(server, trust + "&cert=" + dir.resolve("stranger.p12") + "&cert_password_file="
                    + passwordFile);
            try (Device device = connect(server, trust + "&cert=" + dir.resolve("client.p12")
                    + "&cert_password_file=" + passwordFile)) {
                TrustTest.assertServes(device);
            }
        }
    }

    @Test
    void tlsParametersAreChecked() {
        try (DeviceServer server = server(null)) {
            StatusException e = assertThrows(StatusException.class,
                    () -> connect(server, "trust=" + dir.resolve("server.pem")));
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code(), e.toString());
            e = assertThrows(StatusException.class, () -> connect(server, "tls=1&trust=" + dir.resolve("nope.pem")));
            assertEquals(StatusCode.NOT_FOUND, e.code(), e.toString());
            e = assertThrows(StatusException.class, () -> ServerTls.load(dir.resolve("server.p12"),
                    dir.resolve("server.pem"), null));
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code(), e.toString());
        }
    }
}
