package dev.ortho.hal.remote.internal.protocol;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The token challenge–response of {@link Protocol#HELLO} and {@link Protocol#AUTH}: the server
 * sends a fresh random nonce, the client answers {@code HMAC-SHA256(key = token, nonce)}, the
 * server computes the same and compares in constant time. The token itself never crosses the
 * wire, and a recorded proof is worthless for another connection (another nonce). Thread-safe.
 */
public final class Challenge {
    private static final SecureRandom RANDOM = new SecureRandom();

    static {
        prove(new byte[] {1}, new byte[Protocol.NONCE_BYTES]); // load the JCE provider once, up front
    }

    private Challenge() {}

    /**
     * Loads the MAC implementation (the first use can take a while), so a client calls this
     * before it connects and the handshake's deadline does not pay for it.
     */
    public static void load() {
        // the static initialiser did the work
    }

    /** A fresh nonce of {@link Protocol#NONCE_BYTES} bytes. */
    public static byte[] nonce() {
        byte[] nonce = new byte[Protocol.NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    /**
     * The proof of knowing {@code token} for {@code nonce}.
     *
     * @throws StatusException INVALID_ARGUMENT for an empty token; INTERNAL if the JDK lacks HMAC-SHA256
     */
    public static byte[] prove(byte[] token, byte[] nonce) {
        if (token.length == 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "an empty token cannot prove anything");
        }
        try {
            Mac mac = Mac.getInstance(Protocol.AUTH_MAC);
            mac.init(new SecretKeySpec(token, Protocol.AUTH_MAC));
            return mac.doFinal(nonce);
        } catch (GeneralSecurityException e) {
            throw new StatusException(StatusCode.INTERNAL, Protocol.AUTH_MAC + " is unavailable: " + e, e);
        }
    }

    /** Whether {@code proof} proves {@code token} for {@code nonce}; constant time in the contents. */
    public static boolean verify(byte[] token, byte[] nonce, byte[] proof) {
        return MessageDigest.isEqual(prove(token, nonce), proof);
    }
}
