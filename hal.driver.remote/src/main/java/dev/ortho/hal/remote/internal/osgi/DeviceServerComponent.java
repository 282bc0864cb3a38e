package dev.ortho.hal.remote.internal.osgi;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.remote.DeviceServer;
import dev.ortho.hal.remote.ServerOptions;
import dev.ortho.hal.remote.ServerTls;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Set;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Thin OSGi adapter: runs a {@link DeviceServer} while a configuration with PID
 * {@value #PID} exists (a token file is required, so nothing listens unconfigured). Each client
 * gets a fresh device created from {@code device} through the {@link DriverRegistry}.
 *
 * <p>Configuration properties (DS maps {@code _} in the attribute names to {@code .}):
 * {@code listen} (HOST:PORT), {@code device} (URI), {@code token.file} (required),
 * {@code allow.non.loopback}, {@code max.memory.bytes}, {@code max.handles},
 * {@code max.in.flight}, {@code allowed.formats}, {@code max.connections},
 * {@code max.connections.per.address}, {@code max.server.memory.bytes}, {@code tls.keystore}
 * (PKCS12) with {@code tls.password.file}, {@code tls.client.ca} (PEM).
 */
@Component(configurationPid = DeviceServerComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = {})
@Designate(ocd = DeviceServerComponent.Config.class)
public final class DeviceServerComponent {
    /** ConfigAdmin PID. */
    public static final String PID = "dev.ortho.hal.remote.server";

    @ObjectClassDefinition(name = "Ortho remote HAL device server")
    public @interface Config {
        @AttributeDefinition(description = "HOST:PORT to listen on")
        String listen() default "127.0.0.1:7640";

        @AttributeDefinition(description = "device URI served to each client")
        String device() default "local-task";

        @AttributeDefinition(description = "file holding the shared token")
        String token_file();

        @AttributeDefinition(description = "allow a non-loopback listen address")
        boolean allow_non_loopback() default false;

        @AttributeDefinition(description = "per-client live buffer bytes")
        long max_memory_bytes() default 1L << 30;

        @AttributeDefinition(description = "per-client live handles")
        int max_handles() default 65536;

        @AttributeDefinition(description = "per-client queue operations in flight")
        int max_in_flight() default 1024;

        @AttributeDefinition(description = "trusted executable formats")
        String[] allowed_formats() default {"vmvx-bytecode-fb", "jvm-static"};

        @AttributeDefinition(description = "connections open at once, authenticated or not")
        int max_connections() default 256;

        @AttributeDefinition(description = "connections open at once from one remote address")
        int max_connections_per_address() default 64;

        @AttributeDefinition(description = "live buffer bytes of all clients together")
        long max_server_memory_bytes() default 4L << 30;

        @AttributeDefinition(description = "PKCS12 keystore with the server certificate and key (empty: no TLS)")
        String tls_keystore() default "";

        @AttributeDefinition(description = "file holding the keystore password")
        String tls_password_file() default "";

        @AttributeDefinition(description = "PEM certificates client certificates must chain to (empty: none required)")
        String tls_client_ca() default "";
    }

    private final DeviceServer server;

    /**
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT naming the property if
     *     {@code token_file} is missing or {@code listen} is not HOST:PORT (SCR logs it and the
     *     component stays inactive)
     */
    @Activate
    public DeviceServerComponent(Config config, @Reference DriverRegistry drivers) {
        if (config.token_file() == null || config.token_file().isEmpty()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "configuration " + PID
                    + " needs token.file (the server never runs without a token)");
        }
        String listen = config.listen();
        int colon = listen.lastIndexOf(':');
        InetSocketAddress address;
        try {
            address = new InetSocketAddress(listen.substring(0, Math.max(colon, 0)),
                    Integer.parseInt(listen.substring(colon + 1)));
        } catch (RuntimeException e) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "configuration " + PID + " listen='" + listen
                    + "' is not HOST:PORT");
        }
        ServerOptions options = ServerOptions.defaults(ServerOptions.readToken(Path.of(config.token_file())))
                .withListen(address, config.allow_non_loopback())
                .withQuotas(config.max_memory_bytes(), config.max_handles(), config.max_in_flight())
                .withAllowedFormats(Set.of(config.allowed_formats()))
                .withServerLimits(config.max_connections(), config.max_connections_per_address(),
                        config.max_server_memory_bytes())
                .withTls(config.tls_keystore().isEmpty() ? null : ServerTls.load(Path.of(config.tls_keystore()),
                        Path.of(config.tls_password_file()),
                        config.tls_client_ca().isEmpty() ? null : Path.of(config.tls_client_ca())));
        String device = config.device();
        this.server = DeviceServer.start(() -> drivers.createDevice(device), options);
    }

    @Deactivate
    void deactivate() {
        server.close();
    }
}
