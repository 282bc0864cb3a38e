package dev.ortho.io.parameters;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parameters by scope and key: what IREE's tools build from {@code --parameters=} flags (a scope
 * map of {@code iree_io_parameter_index_t}s, one provider per scope). A scope is the name
 * programs give a parameter group ({@code #flow.parameter.named<"model"::"weight">} has scope
 * {@code model}); the empty scope is the anonymous global one.
 *
 * <pre>{@code
 * try (ParameterIndex index = ParameterIndex.open(List.of("model=weights.irpa"))) {
 *     Module parameters = ParameterModule.create(instance, index);
 *     Context context = Context.create(instance, hal, parameters, program);
 *     ...
 * }
 * }</pre>
 *
 * <p>Within a scope the first entry added under a key wins, as IREE's linear lookup does; keys
 * compare as bytes. Ownership: the index holds one reference on every archive given to its
 * builder or opened by {@link #open}; {@link #close()} drops them (contexts and loaded buffers
 * that still use an archive keep their own references). Immutable once built; thread-safe.
 */
public final class ParameterIndex implements AutoCloseable {
    private final Map<String, Map<String, ParameterEntry>> scopes;
    private final List<ParameterArchive> archives;

    private ParameterIndex(Map<String, Map<String, ParameterEntry>> scopes, List<ParameterArchive> archives) {
        this.scopes = scopes;
        this.archives = archives;
    }

    /** A new, empty builder. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Opens parameter files given as IREE's {@code --parameters=} flag values, in order: each is
     * {@code path} (the global scope) or {@code scope=path} (split at the first {@code =}). Files
     * named {@code *.irpa} are read as IREE parameter archives; other formats IREE reads
     * ({@code .gguf}, {@code .safetensors}) are UNIMPLEMENTED. Several files may share a scope.
     * The caller owns the index.
     *
     * @throws StatusException UNIMPLEMENTED for an unsupported format (naming it), or as
     *     {@link ParameterArchive#open}, annotated with the flag value; nothing stays open then
     */
    public static ParameterIndex open(List<String> specs) {
        Builder builder = builder();
        try {
            for (String spec : specs) {
                int eq = spec.indexOf('=');
                String scope = eq < 0 ? "" : spec.substring(0, eq);
                String path = eq < 0 ? spec : spec.substring(eq + 1);
                try (ParameterArchive archive = openFile(path)) {
                    builder.add(scope, archive);
                } catch (StatusException e) {
                    throw e.annotate("while opening parameters '" + spec + "'");
                }
            }
        } catch (RuntimeException e) {
            builder.build().close();
            throw e;
        }
        return builder.build();
    }

    private static ParameterArchive openFile(String path) {
        int dot = path.lastIndexOf('.');
        int slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
        String extension = dot > slash ? path.substring(dot + 1) : path.substring(slash + 1);
        if (!extension.equalsIgnoreCase("irpa")) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "unsupported file format `" + extension
                    + "`; ensure the extension matches one of the supported formats: [.irpa]");
        }
        return ParameterArchive.open(Path.of(path));
    }

    /** The scopes, in the order they were first added. */
    public List<String> scopes() {
        return List.copyOf(scopes.keySet());
    }

    /** Whether {@code scope} has entries (IREE's provider {@code query_support}). */
    public boolean hasScope(String scope) {
        return scopes.containsKey(scope);
    }

    /** The entries of {@code scope} in order (first per key); empty for an unknown scope. */
    public List<ParameterEntry> entries(String scope) {
        Map<String, ParameterEntry> entries = scopes.get(scope);
        return entries == null ? List.of() : List.copyOf(entries.values());
    }

    /**
     * The entry of {@code scope} named {@code key}.
     *
     * @throws StatusException NOT_FOUND naming the scope or the key
     */
    public ParameterEntry lookup(String scope, String key) {
        return lookup(scope, key.getBytes(StandardCharsets.UTF_8));
    }

    /** As {@link #lookup(String, String)} with the key as bytes. */
    public ParameterEntry lookup(String scope, byte[] key) {
        Map<String, ParameterEntry> entries = scopes.get(scope);
        if (entries == null) {
            throw new StatusException(StatusCode.NOT_FOUND, "no provider registered that handles scopes like '"
                    + scope + "'");
        }
        ParameterEntry entry = entries.get(new String(key, StandardCharsets.ISO_8859_1));
        if (entry == null) {
            throw new StatusException(StatusCode.NOT_FOUND, "no parameter found in index with key '"
                    + new String(key, StandardCharsets.UTF_8) + "' (scope '" + scope + "')");
        }
        return entry;
    }

    /** The archives the index holds a reference on. */
    public List<ParameterArchive> archives() {
        return archives;
    }

    /** Releases the index's archive references (idempotent per archive reference: once). */
    @Override
    public void close() {
        for (ParameterArchive archive : archives) {
            archive.release();
        }
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("ParameterIndex[");
        scopes.forEach((scope, entries) -> text.append(scope.isEmpty() ? "<global>" : scope).append(": ")
                .append(entries.size()).append(" entries; "));
        return text.append(']').toString();
    }

    /** Collects entries by scope. Not thread-safe; {@link #build()} once. */
    public static final class Builder {
        private final Map<String, Map<String, ParameterEntry>> scopes = new LinkedHashMap<>();
        private final List<ParameterArchive> archives = new ArrayList<>();

        private Builder() {
        }

        /**
         * Adds every entry of {@code archive} to {@code scope} and retains the archive (the
         * index releases it on close).
         *
         * @throws StatusException INVALID_ARGUMENT for null; FAILED_PRECONDITION for a closed archive
         */
        public Builder add(String scope, ParameterArchive archive) {
            if (scope == null || archive == null) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "parameter scope or archive is null");
            }
            archive.retain();
            archives.add(archive);
            scopes.computeIfAbsent(scope, s -> new LinkedHashMap<>());
            for (ParameterEntry entry : archive.entries()) {
                put(scope, entry);
            }
            return this;
        }

        /**
         * Adds a splat parameter (IREE's {@code iree_io_parameter_index_add} of a splat entry).
         *
         * @throws StatusException as {@link ParameterEntry#splat}
         */
        public Builder addSplat(String scope, String key, byte[] pattern, long length) {
            if (scope == null) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "parameter scope is null");
            }
            put(scope, ParameterEntry.splat(key, pattern, length));
            return this;
        }

        private void put(String scope, ParameterEntry entry) {
            scopes.computeIfAbsent(scope, s -> new LinkedHashMap<>()).putIfAbsent(entry.lookupKey(), entry);
        }

        /** The index; it owns the archive references this builder took. */
        public ParameterIndex build() {
            Map<String, Map<String, ParameterEntry>> copy = new LinkedHashMap<>();
            scopes.forEach((scope, entries) -> copy.put(scope, Collections.unmodifiableMap(new LinkedHashMap<>(entries))));
            return new ParameterIndex(Collections.unmodifiableMap(copy), List.copyOf(archives));
        }
    }
}
