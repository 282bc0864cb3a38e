package dev.ortho.hal.validation.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.AllocaFlags;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.Channel;
import dev.ortho.hal.ChannelParams;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.HostCall;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.Pool;
import dev.ortho.hal.PoolParams;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.frontier.SemaphoreScope;
import dev.ortho.hal.spi.CommandRecorder;
import dev.ortho.hal.spi.ForwardingDevice;
import java.lang.foreign.MemorySegment;

/**
 * A device that checks every HAL call made through it and forwards the correct ones to any other
 * device (local, remote, another wrapper): Ortho's form of IREE's HAL validation, as a composable
 * wrapper ({@code validation+<driver>://}). Every object it hands out is a validating proxy of
 * the inner one, so checks also cover buffers, semaphores, command buffers and executables.
 *
 * <p>Each call is checked completely before anything is forwarded: a rejected call throws a
 * {@link StatusException} with IREE's code and a message naming the call, the argument, the
 * offending value and the limit, and the inner device sees nothing of it. Correct programs see
 * no difference (the wrapper is transparent: every HAL conformance suite passes through it).
 *
 * <p>Queue checks: semaphore lists ({@link SemaphoreListChecks}: payloads within IREE's maximum, semaphores usable and of a
 * compatible device, signals above the current value and not equal to the highest value an
 * earlier submission will signal, no wait on a failed semaphore by an operation that signals nothing and would lose
 * the failure); buffers as {@link RefChecks}; fills, copies, updates, dispatches as recorded
 * commands; command buffers ended, one-shot buffers submitted once, binding tables covering
 * every used slot with a buffer meeting its requirements; dealloca only of buffers from alloca,
 * once. Use of any object (the device included) after its last release is FAILED_PRECONDITION.
 *
 * <p>Costs one check pass per call plus one proxy per object; nothing when not installed (the
 * registry puts it in the call path only for {@code validation+…} URIs or when configured).
 * Thread-safe as the inner device is.
 */
public final class ValidatingDevice extends ForwardingDevice {
    private static final int HOST_CALL_ARGS = 4;

    private final Liveness liveness = new Liveness();
    private final RefChecks refs;
    private final SemaphoreListChecks semaphoreLists = new SemaphoreListChecks(this);

    /** Wraps {@code inner}, taking over the caller's reference to it. */
    public ValidatingDevice(Device inner) {
        super(inner);
        this.refs = new RefChecks(this, inner.allocator());
    }

    RefChecks refs() {
        return refs;
    }

    void checkLive(String call) {
        liveness.check(call, this);
    }

    // ---- handles ----

    @Override
    protected Allocator wrapAllocator(Allocator inner) {
        return new ValidatingAllocator(this, inner);
    }

    @Override
    protected Buffer wrapBuffer(Buffer inner, Buffer allocatedBuffer) {
        return new ValidatingBuffer(this, inner, (ValidatingBuffer) allocatedBuffer, false);
    }

    @Override
    protected Semaphore wrapSemaphore(Semaphore inner) {
        return new ValidatingSemaphore(this, inner);
    }

    @Override
    protected Event wrapEvent(Event inner) {
        return new ValidatingEvent(this, inner);
    }

    @Override
    protected CommandBuffer wrapCommandBuffer(CommandBuffer inner) {
        return new ValidatingCommandBuffer(this, inner);
    }

    @Override
    protected Channel wrapChannel(Channel inner) {
        return new ValidatingChannel(this, inner);
    }

    @Override
    protected ExecutableCache wrapExecutableCache(ExecutableCache inner) {
        return new ValidatingExecutableCache(this, inner);
    }

    @Override
    protected Pool wrapPool(Pool inner) {
        return new ValidatingPool(this, inner);
    }

    @Override
    protected Executable wrapExecutable(Executable inner) {
        return new ValidatingExecutable(this, inner);
    }

    /** Also unwraps semaphores of another validating device over a compatible device. */
    @Override
    public Semaphore unwrap(Semaphore semaphore) {
        if (semaphore instanceof ValidatingSemaphore validating && semaphoreLists.compatible(validating)) {
            return validating.delegate();
        }
        return super.unwrap(semaphore);
    }

    // ---- device ----

    @Override
    public DeviceInfo info() {
        checkLive("device.info");
        return super.info();
    }

    @Override
    public Allocator allocator() {
        checkLive("device.allocator");
        return super.allocator();
    }

    @Override
    public long queryI64(String category, String key) {
        checkLive("device.queryI64");
        Checks.requireNonNull(category, "device.queryI64", "category");
        Checks.requireNonNull(key, "device.queryI64", "key");
        return super.queryI64(category, key);
    }

    @Override
    public long capabilities() {
        checkLive("device.capabilities");
        return super.capabilities();
    }

    @Override
    public Semaphore createSemaphore(long initialValue) {
        checkLive("device.createSemaphore");
        Checks.payload("device.createSemaphore", "initialValue", initialValue);
        return super.createSemaphore(initialValue);
    }

    @Override
    public Semaphore createSemaphore(long initialValue, SemaphoreScope scope) {
        checkLive("device.createSemaphore");
        Checks.payload("device.createSemaphore", "initialValue", initialValue);
        Checks.requireNonNull(scope, "device.createSemaphore", "scope");
        return super.createSemaphore(initialValue, scope);
    }

    @Override
    public Channel createChannel(long queueAffinity, ChannelParams params) {
        checkLive("device.createChannel");
        Checks.requireNonNull(params, "device.createChannel", "params");
        return super.createChannel(queueAffinity, params);
    }

    @Override
    public Event createEvent() {
        checkLive("device.createEvent");
        return super.createEvent();
    }

    @Override
    public CommandBuffer createCommandBuffer(int mode, int categories, long queueAffinity, int bindingCapacity) {
        String call = "device.createCommandBuffer";
        checkLive(call);
        CommandRecorder.checkCreate(call, mode, categories, bindingCapacity); // IREE's rules, shared
        return super.createCommandBuffer(mode, categories, queueAffinity, bindingCapacity);
    }

    @Override
    public ExecutableCache createExecutableCache(String identifier) {
        checkLive("device.createExecutableCache");
        Checks.requireNonNull(identifier, "device.createExecutableCache", "identifier");
        return super.createExecutableCache(identifier);
    }

    @Override
    public Pool createPool(PoolParams params) {
        String call = "device.createPool";
        checkLive(call);
        Checks.requireNonNull(params, call, "params");
        Checks.requireNonNull(params.bufferParams(), call, "params.bufferParams");
        if (params.quotaBytes() <= 0) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "params.quotaBytes", params.quotaBytes()
                    + " bytes is not positive");
        }
        return super.createPool(params);
    }

    @Override
    public Pool defaultPool() {
        checkLive("device.defaultPool");
        return super.defaultPool();
    }

    // ---- queue operations ----

    @Override
    public Buffer queueAlloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, BufferParams params,
            long size, long flags) {
        String call = "device.queueAlloca";
        checkLive(call);
        semaphoreLists.check(call, waits, signals);
        Checks.requireNonNull(params, call, "params");
        if (size < 0) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "size", size + " bytes is negative");
        }
        Buffer inner = delegate().queueAlloca(queueAffinity, unwrap(waits), unwrap(signals), params, size, flags);
        SemaphoreListChecks.schedule(signals);
        return allocated(inner, flags);
    }

    /**
     * Also checks the pool: null (the default pool), or one this device handed out and not yet
     * released (FAILED_PRECONDITION), not another device's (INVALID_ARGUMENT naming both); a size
     * above the pool's maximum allocation is RESOURCE_EXHAUSTED; flags must be IREE's
     * {@link AllocaFlags} (INVALID_ARGUMENT).
     */
    @Override
    public Buffer queueAlloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Pool pool,
            BufferParams params, long size, long flags) {
        String call = "device.queueAlloca";
        checkLive(call);
        semaphoreLists.check(call, waits, signals);
        Checks.requireNonNull(params, call, "params");
        if (size < 0) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "size", size + " bytes is negative");
        }
        if ((flags & ~AllocaFlags.KNOWN) != 0) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "flags", AllocaFlags.format(flags)
                    + " include unknown bits " + AllocaFlags.format(flags & ~AllocaFlags.KNOWN));
        }
        if (pool != null) {
            if (!(pool instanceof ValidatingPool validating) || validating.owner() != this) {
                throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "pool", pool + " belongs to " + pool.device()
                        + ", not to " + this);
            }
            validating.checkLive(call, "pool");
            long max = validating.delegate().capabilities().maxAllocationSize();
            if (max > 0 && size > max) {
                throw Checks.fail(StatusCode.RESOURCE_EXHAUSTED, call, "size", size
                        + " bytes exceeds the maximum allocation of " + pool + " (" + max + " bytes)");
            }
        }
        Buffer inner = delegate().queueAlloca(queueAffinity, unwrap(waits), unwrap(signals), unwrap(pool), params,
                size, flags);
        SemaphoreListChecks.schedule(signals);
        return allocated(inner, flags);
    }

    private ValidatingBuffer allocated(Buffer inner, long flags) {
        ValidatingBuffer buffer = new ValidatingBuffer(this, inner, null, true);
        if ((flags & AllocaFlags.INDETERMINATE_LIFETIME) != 0) {
            buffer.markIndeterminate();
        }
        return buffer;
    }

    @Override
    public void queueDealloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer buffer,
            long flags) {
        String call = "device.queueDealloca";
        checkLive(call);
        semaphoreLists.check(call, waits, signals);
        if (!(buffer instanceof ValidatingBuffer validating) || validating.owner() != this) {
            refs.usable(call, "buffer", buffer); // null or another device's: throws
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "buffer", buffer
                    + " was not returned by queueAlloca of " + this);
        }
        validating.checkLive(call, "buffer");
        if (validating.isSubspan()) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "buffer", buffer
                    + " was not returned by queueAlloca (a subspan; deallocate the allocation itself)");
        }
        // IREE: a synchronous allocation's dealloca is ignored apart from a barrier that keeps
        // the fence timeline (iree-compile emits such deallocas for allocator.allocate buffers).
        if (!validating.isFromAlloca() || validating.isIndeterminate()) { // the buffer stays usable
            super.queueDealloca(queueAffinity, waits, signals, buffer, flags);
            SemaphoreListChecks.schedule(signals);
            return;
        }
        if (!validating.markDeallocated()) {
            throw Checks.fail(StatusCode.FAILED_PRECONDITION, call, "buffer", buffer
                    + " was deallocated already (double dealloca)");
        }
        try {
            super.queueDealloca(queueAffinity, waits, signals, buffer, flags);
        } catch (RuntimeException e) {
            validating.unmarkDeallocated();
            throw e;
        }
        SemaphoreListChecks.schedule(signals);
    }

    @Override
    public void queueFill(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer target, long offset,
            long length, int pattern, int patternLength, long flags) {
        String call = "device.queueFill";
        checkLive(call);
        semaphoreLists.check(call, waits, signals);
        ValidatingBuffer.checkPatternLength(call, patternLength);
        long resolved = refs.direct(call, "target", target, offset, length, -1, Allocator.COMPATIBILITY_QUEUE_TRANSFER,
                BufferUsage.TRANSFER_TARGET, MemoryAccess.WRITE, MemoryType.DEVICE_VISIBLE, 1);
        Checks.alignment(call, "target", offset, resolved, patternLength);
        super.queueFill(queueAffinity, waits, signals, target, offset, length, pattern, patternLength, flags);
        SemaphoreListChecks.schedule(signals);
    }

    @Override
    public void queueUpdate(long queueAffinity, SemaphoreList waits, SemaphoreList signals, MemorySegment source,
            Buffer target, long targetOffset, long flags) {
        String call = "device.queueUpdate";
        checkLive(call);
        semaphoreLists.check(call, waits, signals);
        Checks.requireNonNull(source, call, "source");
        refs.direct(call, "target", target, targetOffset, Buffer.WHOLE_BUFFER, source.byteSize(),
                Allocator.COMPATIBILITY_QUEUE_TRANSFER, BufferUsage.TRANSFER_TARGET, MemoryAccess.WRITE,
                MemoryType.DEVICE_VISIBLE, 1);
        super.queueUpdate(queueAffinity, waits, signals, source, target, targetOffset, flags);
        SemaphoreListChecks.schedule(signals);
    }

    @Override
    public void queueCopy(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer source,
            long sourceOffset, Buffer target, long targetOffset, long length, long flags) {
        String call = "device.queueCopy";
        checkLive(call);
        semaphoreLists.check(call, waits, signals);
        long sourceLength = refs.direct(call, "source", source, sourceOffset, length, -1,
                Allocator.COMPATIBILITY_QUEUE_TRANSFER, BufferUsage.TRANSFER_SOURCE, MemoryAccess.READ,
                MemoryType.DEVICE_VISIBLE, 1);
        long targetLength = refs.direct(call, "target", target, targetOffset, length, -1,
                Allocator.COMPATIBILITY_QUEUE_TRANSFER, BufferUsage.TRANSFER_TARGET, MemoryAccess.WRITE,
                MemoryType.DEVICE_VISIBLE, 1);
        if (sourceLength != targetLength) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "length", "WHOLE_BUFFER resolves to " + sourceLength
                    + " bytes of the source but " + targetLength + " of the target");
        }
        checkDisjoint(call, source, sourceOffset, sourceLength, target, targetOffset, targetLength);
        super.queueCopy(queueAffinity, waits, signals, source, sourceOffset, target, targetOffset, length, flags);
        SemaphoreListChecks.schedule(signals);
    }

    @Override
    public void queueDispatch(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Executable executable,
            int function, DispatchConfig config, MemorySegment constants, BufferRef[] bindings, long flags) {
        String call = "device.queueDispatch";
        checkLive(call);
        semaphoreLists.check(call, waits, signals);
        DispatchChecks.check(call, this, null, executable, function, config, constants, bindings, flags);
        super.queueDispatch(queueAffinity, waits, signals, executable, function, config, constants, bindings, flags);
        SemaphoreListChecks.schedule(signals);
    }

    @Override
    public void queueExecute(long queueAffinity, SemaphoreList waits, SemaphoreList signals,
            CommandBuffer commandBuffer, BindingTable bindings, long flags) {
        String call = "device.queueExecute";
        checkLive(call);
        semaphoreLists.check(call, waits, signals);
        if (commandBuffer == null) { // a barrier, as the API allows
            super.queueExecute(queueAffinity, waits, signals, null, bindings, flags);
            SemaphoreListChecks.schedule(signals);
            return;
        }
        if (!(commandBuffer instanceof ValidatingCommandBuffer validating) || validating.owner() != this) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "commandBuffer", commandBuffer
                    + " was not created by " + this);
        }
        validating.validateSubmission(call, waits, bindings);
        validating.markSubmitted(call);
        try {
            super.queueExecute(queueAffinity, waits, signals, commandBuffer, bindings, flags);
        } catch (RuntimeException e) {
            validating.unmarkSubmitted();
            throw e;
        }
        SemaphoreListChecks.schedule(signals);
    }

    @Override
    public void queueBarrier(long queueAffinity, SemaphoreList waits, SemaphoreList signals, long flags) {
        String call = "device.queueBarrier";
        checkLive(call);
        semaphoreLists.check(call, waits, signals);
        super.queueBarrier(queueAffinity, waits, signals, flags);
        SemaphoreListChecks.schedule(signals);
    }

    /**
     * Checks and forwards a host call. A blocking call may keep its signal list and signal it
     * later (deferred); the list holds this device's semaphores, so each is retained until the
     * inner semaphore reaches its value, as the queue retains what it will signal.
     */
    @Override
    public void queueHostCall(long queueAffinity, SemaphoreList waits, SemaphoreList signals, HostCall call,
            long[] args, long flags) {
        String name = "device.queueHostCall";
        checkLive(name);
        semaphoreLists.check(name, waits, signals);
        Checks.requireNonNull(call, name, "call");
        if (args != null && args.length > HOST_CALL_ARGS) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, name, "args", args.length + " arguments exceed the "
                    + HOST_CALL_ARGS + " a host call takes");
        }
        boolean keepSignals = (flags & HostCall.FLAG_NON_BLOCKING) == 0;
        if (keepSignals) {
            SemaphoreListChecks.retainUntilSignalled(signals);
        }
        super.queueHostCall(queueAffinity, waits, signals, call, args, flags);
        SemaphoreListChecks.schedule(signals);
    }

    @Override
    public void queueFlush(long queueAffinity) {
        checkLive("device.queueFlush");
        super.queueFlush(queueAffinity);
    }

    // ---- checks ----

    /** Copies must not overlap within one allocation (INVALID_ARGUMENT), as memcpy. */
    void checkDisjoint(String call, Buffer source, long sourceOffset, long sourceLength, Buffer target,
            long targetOffset, long targetLength) {
        Buffer innerSource = unwrap(source);
        Buffer innerTarget = unwrap(target);
        if (innerSource.allocatedBuffer() != innerTarget.allocatedBuffer()) {
            return;
        }
        long sourceStart = innerSource.byteOffset() + sourceOffset;
        long targetStart = innerTarget.byteOffset() + targetOffset;
        if (Checks.overlaps(sourceStart, sourceLength, targetStart, targetLength)) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "target", "allocation range [" + targetStart + ", "
                    + (targetStart + targetLength) + ") overlaps the source range [" + sourceStart + ", "
                    + (sourceStart + sourceLength) + ") of the same allocation");
        }
    }

    // ---- lifetime ----

    @Override
    public void retain() {
        liveness.retain("device.retain", this);
        super.retain();
    }

    @Override
    public void release() {
        liveness.release("device.release", this);
        super.release();
    }

    @Override
    public String toString() {
        return "validation+" + delegate();
    }
}
