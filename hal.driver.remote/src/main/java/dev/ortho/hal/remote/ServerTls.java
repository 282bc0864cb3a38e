package dev.ortho.hal.remote;

import dev.ortho.hal.remote.internal.transport.TlsContexts;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;

/**
 * TLS for a {@link DeviceServer} (the JDK's {@code SSLEngine}): the server's certificate and key,
 * and optionally the certificates a client must present one signed by (mutual TLS). Immutable.
 *
 * @param context the server's TLS context (its key managers identify the server)
 * @param requireClientCertificate whether a client without a certificate trusted by
 *     {@code context} is refused during the TLS handshake
 */
public record ServerTls(SSLContext context, boolean requireClientCertificate) {

    /**
     * Loads a PKCS12 {@code keystore} (certificate chain and private key) with the password in
     * {@code passwordFile}; with {@code clientCaPem} (PEM certificates), clients must present a
     * certificate that chains to one of them.
     *
     * @throws dev.ortho.base.StatusException NOT_FOUND naming an unreadable file, INVALID_ARGUMENT
     *     naming a keystore that does not open with the password or a PEM file with no certificate
     */
    public static ServerTls load(Path keystore, Path passwordFile, Path clientCaPem) {
        return new ServerTls(TlsContexts.context(keystore, TlsContexts.password(passwordFile), clientCaPem),
                clientCaPem != null);
    }
}
