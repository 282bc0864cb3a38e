package dev.ortho.modules.hal;

import dev.ortho.hal.BufferView;
import java.util.List;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Receives {@code hal.buffer_view.trace} calls (IREE's {@code buffer_view_trace} debug sink), e.g.
 * to print intermediate values when a tool runs with tracing enabled. Without a sink the export
 * does nothing, as in IREE.
 */
@ConsumerType
@FunctionalInterface
public interface BufferViewTraceSink {
    /**
     * Called on the invoking thread with the program's {@code key} and its buffer views, which are
     * borrowed for the duration of the call (retain what you keep). May read the views' buffers;
     * must not block for long.
     *
     * @throws dev.ortho.base.StatusException to fail the program's call
     */
    void trace(String key, List<BufferView> views);
}
