package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A parsed device URI, IREE's {@code driver://path?key=value&key=value} form
 * ({@code iree_uri_split}): {@code local-task}, {@code local-sync://},
 * {@code remote://127.0.0.1:7640?token_file=/run/t}, {@code validation+local-task://}.
 *
 * <p>As in IREE, the {@code //} after the scheme is optional and the path and parameters are taken
 * verbatim (no percent-decoding); parameters may follow a bare driver name
 * ({@code local-task?workers=2}). Ortho is stricter than IREE where IREE silently accepts
 * nonsense: an empty or malformed scheme, an empty parameter key and a repeated key are
 * {@code INVALID_ARGUMENT}.
 *
 * @param driverName the scheme: a driver name, or wrapper names and a driver joined by {@code +}
 * @param path the device path within the driver; empty selects the driver's default device
 * @param params the parameters in the order written; a key without {@code =} maps to {@code ""}
 */
public record DeviceUri(String driverName, String path, Map<String, String> params) {

    public DeviceUri {
        Objects.requireNonNull(driverName, "driverName");
        Objects.requireNonNull(path, "path");
        params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }

    /**
     * Parses {@code uri}.
     *
     * @throws StatusException INVALID_ARGUMENT naming the URI and what is wrong with it
     */
    public static DeviceUri parse(String uri) {
        if (uri == null || uri.isBlank()) {
            throw invalid(uri, "a device URI must name a driver, e.g. 'local-task'");
        }
        String scheme = uri;
        String rest = "";
        int colon = uri.indexOf(':');
        int question = uri.indexOf('?');
        if (question >= 0 && (colon < 0 || question < colon)) {
            // 'local-task?workers=2': parameters without a path
            scheme = uri.substring(0, question);
            rest = uri.substring(question);
        } else if (colon >= 0) {
            scheme = uri.substring(0, colon);
            rest = uri.substring(colon + 1);
            if (rest.startsWith("//")) {
                rest = rest.substring(2);
            } else if (rest.startsWith("/")) {
                rest = rest.substring(1);
            }
        }
        validateScheme(uri, scheme);
        String path = rest;
        String query = "";
        int paramsStart = rest.indexOf('?');
        if (paramsStart >= 0) {
            path = rest.substring(0, paramsStart);
            query = rest.substring(paramsStart + 1);
        }
        return new DeviceUri(scheme, path, parseParams(uri, query));
    }

    /** The value of parameter {@code key}, or {@code defaultValue} if absent. */
    public String param(String key, String defaultValue) {
        return params.getOrDefault(key, defaultValue);
    }

    /** The canonical text form, {@code driver://path?k=v&k=v}, which {@link #parse} reads back. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(driverName).append("://").append(path);
        char separator = '?';
        for (Map.Entry<String, String> param : params.entrySet()) {
            text.append(separator).append(param.getKey());
            if (!param.getValue().isEmpty()) {
                text.append('=').append(param.getValue());
            }
            separator = '&';
        }
        return text.toString();
    }

    private static void validateScheme(String uri, String scheme) {
        if (scheme.isEmpty()) {
            throw invalid(uri, "the driver name before ':' is empty");
        }
        for (String part : scheme.split("\\+", -1)) {
            if (part.isEmpty()) {
                throw invalid(uri, "driver name '" + scheme + "' has an empty part around '+'");
            }
            for (int i = 0; i < part.length(); i++) {
                char c = part.charAt(i);
                boolean ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                        || (i > 0 && (c == '-' || c == '_' || c == '.'));
                if (!ok) {
                    throw invalid(uri, "driver name '" + scheme + "' has invalid character '" + c
                            + "' at " + i + " (expected lower-case letters, digits, '.', '_', '-')");
                }
            }
        }
    }

    private static Map<String, String> parseParams(String uri, String query) {
        Map<String, String> params = new LinkedHashMap<>();
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue; // tolerate 'a=1&&b=2' and a trailing '&' as IREE does
            }
            int equals = pair.indexOf('=');
            String key = equals >= 0 ? pair.substring(0, equals) : pair;
            String value = equals >= 0 ? pair.substring(equals + 1) : "";
            if (key.isEmpty()) {
                throw invalid(uri, "parameter '" + pair + "' has an empty key");
            }
            if (params.putIfAbsent(key, value) != null) {
                throw invalid(uri, "parameter '" + key + "' is given more than once");
            }
        }
        return params;
    }

    private static StatusException invalid(String uri, String why) {
        return new StatusException(StatusCode.INVALID_ARGUMENT, "device URI '" + uri + "': " + why);
    }
}
