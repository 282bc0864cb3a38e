package dev.ortho.stress;

import dev.ortho.task.Executor;

/**
 * One executor per stress JVM (jcstress forks a JVM per test): two workers that park at once
 * when idle, so they do not compete with the actor threads for the CPU between iterations.
 * Its threads are daemons and die with the fork.
 */
public final class SharedExecutor {
    private static final Executor EXECUTOR =
            Executor.builder().name("jcstress").workerCount(2).spinNanos(0).build();

    private SharedExecutor() {
    }

    /** The executor; never closed (the fork exits). */
    public static Executor get() {
        return EXECUTOR;
    }
}
