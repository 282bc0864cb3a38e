package dev.ortho.task.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.task.DrainFunction;
import dev.ortho.task.Process;
import dev.ortho.task.Scope;
import java.util.Objects;
import java.util.function.IntFunction;

/** Collects a process's configuration; confined to the thread that uses it. */
final class ProcessBuilderImpl implements Process.Builder {
    final ExecutorImpl executor;
    final String name;
    final DrainFunction drain;
    int suspendCount;
    int wakeBudget = 1;
    boolean computeSlot;
    int priority;
    ScopeImpl scope;
    Process.CompletionCallback completionCallback;
    Process.ReleaseCallback releaseCallback;
    IntFunction<?> workerStateFactory;
    /** Set by {@link QueueProcessImpl}: the wake budget may never leave 1. */
    boolean fixedBudget;
    boolean reusable;

    ProcessBuilderImpl(ExecutorImpl executor, String name, DrainFunction drain) {
        this.executor = executor;
        this.name = Objects.requireNonNull(name, "name");
        this.drain = Objects.requireNonNull(drain, "drain");
    }

    @Override
    public Process.Builder suspendCount(int count) {
        if (count < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "suspend count " + count + " of '" + name + "' is negative");
        }
        this.suspendCount = count;
        return this;
    }

    @Override
    public Process.Builder wakeBudget(int budget) {
        if (budget < 1) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "wake budget " + budget + " of '" + name + "' is below 1");
        }
        this.wakeBudget = budget;
        return this;
    }

    @Override
    public Process.Builder computeSlot() {
        this.computeSlot = true;
        return this;
    }

    @Override
    public Process.Builder priority(int priority) {
        this.priority = priority;
        return this;
    }

    @Override
    public Process.Builder scope(Scope scope) {
        if (!(scope instanceof ScopeImpl s)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "scope of '" + name + "' was not made by Scope.create");
        }
        this.scope = s;
        return this;
    }

    @Override
    public Process.Builder onComplete(Process.CompletionCallback callback) {
        this.completionCallback = callback;
        return this;
    }

    @Override
    public Process.Builder onRelease(Process.ReleaseCallback callback) {
        this.releaseCallback = callback;
        return this;
    }

    @Override
    public Process.Builder workerState(IntFunction<?> factory) {
        this.workerStateFactory = factory;
        return this;
    }

    @Override
    public Process.Builder reusable() {
        this.reusable = true;
        return this;
    }

    @Override
    public Process build() {
        ProcessImpl p = new ProcessImpl(this);
        executor.register(p);
        return p;
    }
}
