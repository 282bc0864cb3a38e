package dev.ortho.hal.spi;

import dev.ortho.hal.Allocator;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferBarrier;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
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
import dev.ortho.hal.Pool;
import dev.ortho.hal.PoolParams;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.frontier.SemaphoreScope;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The base of device wrappers (validation, tracing, remote proxies): a {@link Device} that
 * forwards every call to the device it wraps. Composition, not inheritance: a wrapper holds the
 * inner device and never subclasses a driver's implementation.
 *
 * <p><b>Handles.</b> A wrapper that wants to see calls on the objects a device hands out
 * (buffers, semaphores, command buffers, channels, pools, ...) overrides the {@code wrap…} hooks to return its own
 * {@code Forwarding…} subclasses ({@link ForwardingBuffer}, {@link ForwardingSemaphore}, ...)
 * owned by this device. Every queue and recording call then translates its arguments back with
 * the {@code unwrap} methods, so the inner device only ever sees its own objects, including those
 * nested in {@link BufferRef}s, {@link SemaphoreList}s, {@link BindingTable}s and
 * {@link DispatchConfig}s and {@link BufferBarrier}s. By default the hooks return the inner object unchanged and the
 * {@code unwrap} methods return their argument without allocating: a wrapper pays only for the
 * object types it intercepts. Objects owned by a different wrapper pass through unchanged (the
 * inner device decides whether it accepts them); a wrapper with its own handle table overrides
 * the element-level {@code unwrap} methods.
 *
 * <p>Callbacks cross back the same way: a {@link HostCall} receives this device and the caller's
 * own signal list, a timepoint callback receives the wrapping semaphore.
 *
 * <p>Lifetime: the wrapper owns one reference to the inner device; {@code retain}/{@code release}
 * forward, so the last release of the wrapper releases the inner device. Thread-safe if the
 * subclass is: this class keeps no mutable state besides the lazily wrapped allocator and
 * default pool.
 */
public abstract class ForwardingDevice implements Device {
    private final Device delegate;
    private volatile Allocator allocator;
    private volatile Pool defaultPool;

    /** Wraps {@code delegate}, taking over the caller's reference to it. */
    protected ForwardingDevice(Device delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The wrapped device. */
    public final Device delegate() {
        return delegate;
    }

    // ---- hooks: how inner objects are handed out (identity unless overridden) ----

    /** Wraps the inner device's allocator; called once. */
    protected Allocator wrapAllocator(Allocator inner) {
        return inner;
    }

    /**
     * Wraps a buffer the inner device handed out.
     *
     * @param allocatedBuffer the wrapper of the buffer's root allocation when {@code inner} is a
     *     subspan, or null when {@code inner} is itself a root
     */
    protected Buffer wrapBuffer(Buffer inner, Buffer allocatedBuffer) {
        return inner;
    }

    /** Wraps a semaphore the inner device created. */
    protected Semaphore wrapSemaphore(Semaphore inner) {
        return inner;
    }

    /** Wraps an event the inner device created. */
    protected Event wrapEvent(Event inner) {
        return inner;
    }

    /** Wraps a command buffer the inner device created. */
    protected CommandBuffer wrapCommandBuffer(CommandBuffer inner) {
        return inner;
    }

    /** Wraps an executable cache the inner device created. */
    protected ExecutableCache wrapExecutableCache(ExecutableCache inner) {
        return inner;
    }

    /** Wraps a collective channel the inner device created. */
    protected Channel wrapChannel(Channel inner) {
        return inner;
    }

    /**
     * Wraps a pool of the inner device: one it created for a caller (who then owns the wrapper)
     * or its default pool (called once; the wrapper is borrowed from this device).
     */
    protected Pool wrapPool(Pool inner) {
        return inner;
    }

    /** Wraps an executable an inner executable cache prepared. */
    protected Executable wrapExecutable(Executable inner) {
        return inner;
    }

    // ---- unwrapping: element level (overridable), then composites (allocate only on change) ----

    /** The inner buffer of {@code buffer} if this device handed it out, else {@code buffer}. */
    public Buffer unwrap(Buffer buffer) {
        return buffer instanceof ForwardingBuffer f && f.owner() == this ? f.delegate() : buffer;
    }

    /** The inner semaphore of {@code semaphore} if this device handed it out, else {@code semaphore}. */
    public Semaphore unwrap(Semaphore semaphore) {
        return semaphore instanceof ForwardingSemaphore f && f.owner() == this ? f.delegate() : semaphore;
    }

    /** The inner event of {@code event} if this device handed it out, else {@code event}. */
    public Event unwrap(Event event) {
        return event instanceof ForwardingEvent f && f.owner() == this ? f.delegate() : event;
    }

    /** The inner command buffer if this device handed it out, else {@code commandBuffer}. */
    public CommandBuffer unwrap(CommandBuffer commandBuffer) {
        return commandBuffer instanceof ForwardingCommandBuffer f && f.owner() == this ? f.delegate() : commandBuffer;
    }

    /** The inner executable if this device handed it out, else {@code executable}. */
    public Executable unwrap(Executable executable) {
        return executable instanceof ForwardingExecutable f && f.owner() == this ? f.delegate() : executable;
    }

    /** The inner channel if this device handed it out, else {@code channel}. */
    public Channel unwrap(Channel channel) {
        return channel instanceof ForwardingChannel f && f.owner() == this ? f.delegate() : channel;
    }

    /** The inner pool if this device handed it out, else {@code pool} (null stays null). */
    public Pool unwrap(Pool pool) {
        return pool instanceof ForwardingPool f && f.owner() == this ? f.delegate() : pool;
    }

    /** {@code ref} with its buffer unwrapped; the same record if nothing changes (or null). */
    public final BufferRef unwrap(BufferRef ref) {
        if (ref == null || ref.buffer() == null) {
            return ref;
        }
        Buffer inner = unwrap(ref.buffer());
        return inner == ref.buffer() ? ref : new BufferRef(ref.bufferSlot(), inner, ref.offset(), ref.length());
    }

    /** {@code refs} with every buffer unwrapped; the same array if nothing changes (or null). */
    public final BufferRef[] unwrap(BufferRef[] refs) {
        if (refs == null) {
            return null;
        }
        BufferRef[] result = refs;
        for (int i = 0; i < refs.length; i++) {
            BufferRef inner = unwrap(refs[i]);
            if (inner != refs[i]) {
                if (result == refs) {
                    result = refs.clone();
                }
                result[i] = inner;
            }
        }
        return result;
    }

    /** {@code barriers} with every buffer unwrapped; the same array if nothing changes (or null). */
    public final BufferBarrier[] unwrap(BufferBarrier[] barriers) {
        if (barriers == null) {
            return null;
        }
        BufferBarrier[] result = barriers;
        for (int i = 0; i < barriers.length; i++) {
            BufferBarrier barrier = barriers[i];
            BufferRef inner = barrier == null ? null : unwrap(barrier.buffer());
            if (barrier != null && inner != barrier.buffer()) {
                if (result == barriers) {
                    result = barriers.clone();
                }
                result[i] = new BufferBarrier(barrier.sourceScope(), barrier.targetScope(), inner);
            }
        }
        return result;
    }

    /** {@code events} with every event unwrapped; the same array if nothing changes (or null). */
    public final Event[] unwrap(Event[] events) {
        if (events == null) {
            return null;
        }
        Event[] result = events;
        for (int i = 0; i < events.length; i++) {
            Event inner = unwrap(events[i]);
            if (inner != events[i]) {
                if (result == events) {
                    result = events.clone();
                }
                result[i] = inner;
            }
        }
        return result;
    }

    /** {@code config} with its workgroup count buffer unwrapped; the same record if nothing changes. */
    public final DispatchConfig unwrap(DispatchConfig config) {
        if (config == null || config.workgroupCountRef() == null) {
            return config;
        }
        BufferRef inner = unwrap(config.workgroupCountRef());
        return inner == config.workgroupCountRef() ? config : new DispatchConfig(config.workgroupSizeX(),
                config.workgroupSizeY(), config.workgroupSizeZ(), config.workgroupCountX(), config.workgroupCountY(),
                config.workgroupCountZ(), inner, config.dynamicLocalMemory());
    }

    /** {@code list} with every semaphore unwrapped; the same list if nothing changes (or null). */
    public final SemaphoreList unwrap(SemaphoreList list) {
        if (list == null) {
            return null;
        }
        int size = list.size();
        Semaphore[] semaphores = null;
        for (int i = 0; i < size; i++) {
            Semaphore outer = list.semaphore(i);
            Semaphore inner = unwrap(outer);
            if (inner != outer && semaphores == null) {
                semaphores = new Semaphore[size];
                for (int j = 0; j < i; j++) {
                    semaphores[j] = list.semaphore(j);
                }
            }
            if (semaphores != null) {
                semaphores[i] = inner;
            }
        }
        if (semaphores == null) {
            return list;
        }
        long[] values = new long[size];
        for (int i = 0; i < size; i++) {
            values[i] = list.value(i);
        }
        return SemaphoreList.of(semaphores, values);
    }

    /** {@code table} with every buffer unwrapped; the same table if nothing changes (or null). */
    public final BindingTable unwrap(BindingTable table) {
        if (table == null) {
            return null;
        }
        int size = table.size();
        Buffer[] buffers = null;
        for (int i = 0; i < size; i++) {
            Buffer outer = table.buffer(i);
            Buffer inner = unwrap(outer);
            if (inner != outer && buffers == null) {
                buffers = new Buffer[size];
                for (int j = 0; j < i; j++) {
                    buffers[j] = table.buffer(j);
                }
            }
            if (buffers != null) {
                buffers[i] = inner;
            }
        }
        if (buffers == null) {
            return table;
        }
        long[] offsets = new long[size];
        long[] lengths = new long[size];
        for (int i = 0; i < size; i++) {
            offsets[i] = table.offset(i);
            lengths[i] = table.length(i);
        }
        return BindingTable.of(buffers, offsets, lengths);
    }

    // ---- Device ----

    @Override
    public DeviceInfo info() {
        return delegate.info();
    }

    @Override
    public Allocator allocator() {
        Allocator wrapped = allocator;
        if (wrapped == null) {
            synchronized (this) {
                wrapped = allocator;
                if (wrapped == null) {
                    wrapped = wrapAllocator(delegate.allocator());
                    allocator = wrapped; // volatile write: publishes the fully built wrapper
                }
            }
        }
        return wrapped;
    }

    @Override
    public long queryI64(String category, String key) {
        return delegate.queryI64(category, key);
    }

    @Override
    public long capabilities() {
        return delegate.capabilities();
    }

    @Override
    public Semaphore createSemaphore(long initialValue) {
        return wrapSemaphore(delegate.createSemaphore(initialValue));
    }

    @Override
    public Semaphore createSemaphore(long initialValue, SemaphoreScope scope) {
        return wrapSemaphore(delegate.createSemaphore(initialValue, scope));
    }

    @Override
    public Channel createChannel(long queueAffinity, ChannelParams params) {
        return wrapChannel(delegate.createChannel(queueAffinity, params));
    }

    @Override
    public Event createEvent() {
        return wrapEvent(delegate.createEvent());
    }

    @Override
    public CommandBuffer createCommandBuffer(int mode, int categories, long queueAffinity, int bindingCapacity) {
        return wrapCommandBuffer(delegate.createCommandBuffer(mode, categories, queueAffinity, bindingCapacity));
    }

    @Override
    public ExecutableCache createExecutableCache(String identifier) {
        return wrapExecutableCache(delegate.createExecutableCache(identifier));
    }

    @Override
    public Buffer queueAlloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, BufferParams params,
            long size, long flags) {
        return wrapBuffer(delegate.queueAlloca(queueAffinity, unwrap(waits), unwrap(signals), params, size, flags),
                null);
    }

    @Override
    public Buffer queueAlloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Pool pool,
            BufferParams params, long size, long flags) {
        return wrapBuffer(delegate.queueAlloca(queueAffinity, unwrap(waits), unwrap(signals), unwrap(pool), params,
                size, flags), null);
    }

    @Override
    public Pool createPool(PoolParams params) {
        return wrapPool(delegate.createPool(params));
    }

    @Override
    public Pool defaultPool() {
        Pool wrapped = defaultPool;
        if (wrapped == null) {
            synchronized (this) {
                wrapped = defaultPool;
                if (wrapped == null) {
                    wrapped = wrapPool(delegate.defaultPool());
                    defaultPool = wrapped; // volatile write: publishes the fully built wrapper
                }
            }
        }
        return wrapped;
    }

    @Override
    public void queueDealloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer buffer,
            long flags) {
        delegate.queueDealloca(queueAffinity, unwrap(waits), unwrap(signals), unwrap(buffer), flags);
    }

    @Override
    public void queueFill(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer target, long offset,
            long length, int pattern, int patternLength, long flags) {
        delegate.queueFill(queueAffinity, unwrap(waits), unwrap(signals), unwrap(target), offset, length, pattern,
                patternLength, flags);
    }

    @Override
    public void queueUpdate(long queueAffinity, SemaphoreList waits, SemaphoreList signals, MemorySegment source,
            Buffer target, long targetOffset, long flags) {
        delegate.queueUpdate(queueAffinity, unwrap(waits), unwrap(signals), source, unwrap(target), targetOffset,
                flags);
    }

    @Override
    public void queueCopy(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer source,
            long sourceOffset, Buffer target, long targetOffset, long length, long flags) {
        delegate.queueCopy(queueAffinity, unwrap(waits), unwrap(signals), unwrap(source), sourceOffset,
                unwrap(target), targetOffset, length, flags);
    }

    @Override
    public void queueDispatch(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Executable executable,
            int function, DispatchConfig config, MemorySegment constants, BufferRef[] bindings, long flags) {
        delegate.queueDispatch(queueAffinity, unwrap(waits), unwrap(signals), unwrap(executable), function,
                unwrap(config), constants, unwrap(bindings), flags);
    }

    @Override
    public void queueExecute(long queueAffinity, SemaphoreList waits, SemaphoreList signals,
            CommandBuffer commandBuffer, BindingTable bindings, long flags) {
        delegate.queueExecute(queueAffinity, unwrap(waits), unwrap(signals), unwrap(commandBuffer), unwrap(bindings),
                flags);
    }

    @Override
    public void queueBarrier(long queueAffinity, SemaphoreList waits, SemaphoreList signals, long flags) {
        delegate.queueBarrier(queueAffinity, unwrap(waits), unwrap(signals), flags);
    }

    /**
     * Forwards a host call; the call receives this device and, unless the inner device passes an
     * empty list (non-blocking mode), the caller's own {@code signals} rather than the inner list.
     */
    @Override
    public void queueHostCall(long queueAffinity, SemaphoreList waits, SemaphoreList signals, HostCall call,
            long[] args, long flags) {
        HostCall forwarded = call == null ? null
                : (device, callArgs, innerSignals) -> call.call(this, callArgs,
                        innerSignals.isEmpty() || signals == null ? innerSignals : signals);
        delegate.queueHostCall(queueAffinity, unwrap(waits), unwrap(signals), forwarded, args, flags);
    }

    @Override
    public void queueFlush(long queueAffinity) {
        delegate.queueFlush(queueAffinity);
    }

    @Override
    public void retain() {
        delegate.retain();
    }

    @Override
    public void release() {
        delegate.release();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "(" + delegate + ")";
    }
}
