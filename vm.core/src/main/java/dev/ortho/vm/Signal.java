package dev.ortho.vm;

/**
 * System signals delivered to every module of a context by {@link Context#notify(Signal)}, with
 * IREE's numbering and walk order ({@code iree_vm_signal_t}).
 */
public enum Signal {
    /** Resuming from suspension; modules may reallocate pools. Walked in registration order. */
    RESUME,
    /** Entering suspension; drop what can be rebuilt. Walked in reverse registration order. */
    SUSPEND,
    /** Low memory: drop everything possible. Walked in reverse registration order. */
    LOW_MEMORY,
    /** The context was forked from a parent. Walked in registration order. */
    FORK;

    /** True if modules are walked in registration order (RESUME, FORK). */
    public boolean isForward() {
        return this == RESUME || this == FORK;
    }
}
