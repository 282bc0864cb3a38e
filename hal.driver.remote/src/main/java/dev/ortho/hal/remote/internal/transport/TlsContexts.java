package dev.ortho.hal.remote.internal.transport;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Builds the JDK {@link SSLContext}s of the remote HAL from files: a PKCS12 keystore (the
 * certificate chain and private key that identify this end) and PEM certificates (what this end
 * trusts). Stateless.
 */
public final class TlsContexts {
    private TlsContexts() {}

    /**
     * A TLS context: identity from {@code keystore} (PKCS12, may be null for a client without a
     * certificate), trust from the PEM certificates in {@code trustPem} (null: the JDK's default
     * trust, e.g. the system CAs).
     *
     * @throws StatusException NOT_FOUND naming a file that cannot be read; INVALID_ARGUMENT naming a
     *     file that is not a PKCS12 keystore with that password or holds no PEM certificate
     */
    public static SSLContext context(Path keystore, char[] password, Path trustPem) {
        try {
            KeyManagerFactory keys = null;
            if (keystore != null) {
                KeyStore store = KeyStore.getInstance("PKCS12");
                try (InputStream in = Files.newInputStream(keystore)) {
                    store.load(in, password);
                } catch (IOException e) {
                    if (!Files.isReadable(keystore)) {
                        throw new StatusException(StatusCode.NOT_FOUND, "cannot read TLS keystore '" + keystore + "'");
                    }
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, "TLS keystore '" + keystore
                            + "' is not a PKCS12 keystore with the given password: " + e.getMessage());
                }
                keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keys.init(store, password);
            }
            TrustManagerFactory trust = null;
            if (trustPem != null) {
                trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                trust.init(trustStore(trustPem));
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys == null ? null : keys.getKeyManagers(), trust == null ? null : trust.getTrustManagers(),
                    null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "cannot set up TLS: " + e.getMessage());
        }
    }

    /** A keystore holding the PEM certificates of {@code pem} as trusted entries. */
    static KeyStore trustStore(Path pem) throws GeneralSecurityException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(pem);
        } catch (IOException e) {
            throw new StatusException(StatusCode.NOT_FOUND, "cannot read TLS trust file '" + pem + "': " + e.getMessage());
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        try {
            store.load(null, null);
        } catch (IOException e) {
            throw new GeneralSecurityException(e);
        }
        int n = 0;
        for (Certificate certificate : CertificateFactory.getInstance("X.509")
                .generateCertificates(new java.io.ByteArrayInputStream(bytes))) {
            store.setCertificateEntry("trusted-" + n++, certificate);
        }
        if (n == 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "TLS trust file '" + pem
                    + "' holds no certificate (PEM expected)");
        }
        return store;
    }

    /** The first line of {@code passwordFile} as a password (NOT_FOUND naming the file if unreadable). */
    public static char[] password(Path passwordFile) {
        try {
            return Files.readString(passwordFile, StandardCharsets.UTF_8).strip().toCharArray();
        } catch (IOException e) {
            throw new StatusException(StatusCode.NOT_FOUND, "cannot read password file '" + passwordFile + "': "
                    + e.getMessage());
        }
    }
}
