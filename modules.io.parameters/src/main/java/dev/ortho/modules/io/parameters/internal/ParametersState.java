package dev.ortho.modules.io.parameters.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.io.parameters.ParameterArchive;
import dev.ortho.io.parameters.ParameterIndex;
import java.util.List;

/**
 * The {@code io_parameters} module's state in one context: the index, with a reference on each of
 * its archives held while the context lives (so closing the index does not unmap what a running
 * program reads). Immutable; thread-safe.
 */
final class ParametersState {
    private final ParameterIndex index;
    private final List<ParameterArchive> archives;

    private ParametersState(ParameterIndex index) {
        this.index = index;
        this.archives = index.archives();
    }

    /**
     * Retains every archive of {@code index}.
     *
     * @throws StatusException FAILED_PRECONDITION if the index was closed (its archives released)
     */
    static ParametersState create(ParameterIndex index) {
        List<ParameterArchive> archives = index.archives();
        for (int i = 0; i < archives.size(); i++) {
            try {
                archives.get(i).retain();
            } catch (StatusException e) {
                for (int k = 0; k < i; k++) {
                    archives.get(k).release();
                }
                throw e.annotate("while creating io_parameters module state (was the ParameterIndex closed?)");
            }
        }
        return new ParametersState(index);
    }

    ParametersState fork() {
        return create(index);
    }

    void free() {
        for (ParameterArchive archive : archives) {
            archive.release();
        }
    }

    /**
     * The index if it serves {@code scope} (IREE's provider resolution).
     *
     * @throws StatusException NOT_FOUND naming the scope
     */
    ParameterIndex provider(String scope) {
        if (!index.hasScope(scope)) {
            throw new StatusException(StatusCode.NOT_FOUND, "no provider registered that handles scopes like '"
                    + scope + "'");
        }
        return index;
    }
}
