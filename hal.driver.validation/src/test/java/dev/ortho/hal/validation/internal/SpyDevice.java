package dev.ortho.hal.validation.internal;

import dev.ortho.hal.Allocator;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.spi.ForwardingAllocator;
import dev.ortho.hal.spi.ForwardingBuffer;
import dev.ortho.hal.spi.ForwardingCommandBuffer;
import dev.ortho.hal.spi.ForwardingDevice;
import dev.ortho.hal.spi.ForwardingEvent;
import dev.ortho.hal.spi.ForwardingExecutable;
import dev.ortho.hal.spi.ForwardingExecutableCache;
import dev.ortho.hal.spi.ForwardingSemaphore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * The device under the validation wrapper in the negative tests: forwards everything to a real
 * device and records every call that could change state on it or on an object it handed out
 * (queries such as {@code byteLength} or {@code queryBufferCompatibility}, which the validation
 * layer itself makes, are not recorded). A test {@link #clear()}s the log, makes a call the wrapper
 * must reject, and asserts that nothing was recorded: the inner device saw no part of it.
 *
 * <p>Built on the forwarding bases like any wrapper: each handle keeps its raw inner object so
 * the real device receives its own objects, while calls on the handle go through a recording
 * proxy.
 */
final class SpyDevice extends ForwardingDevice {
    private static final Set<String> QUERIES = Set.of("allocatedBuffer", "allocationSize", "byteOffset",
            "byteLength", "memoryType", "allowedAccess", "allowedUsage", "mode", "allowedCategories",
            "queueAffinity", "bindingCapacity", "query", "failure", "frontierAt", "functionCount", "functionInfo",
            "format", "lookupFunction", "canPrepareFormat", "info", "queryI64", "capabilities", "heaps",
            "queryBufferCompatibility", "statistics", "allocator", "toString", "hashCode", "equals");

    /** State-changing calls that reached the inner device, as {@code "type.method"}; shared by all handles. */
    private final List<String> shared;

    private SpyDevice(Device raw, List<String> log) {
        super(recording(Device.class, raw, "device", log));
        this.shared = log;
    }

    /** A spy over {@code raw}, taking over the caller's reference to it. */
    static SpyDevice over(Device raw) {
        return new SpyDevice(raw, Collections.synchronizedList(new ArrayList<>()));
    }

    /** The recorded calls since the last {@link #clear()}. */
    List<String> recorded() {
        return List.copyOf(shared);
    }

    void clear() {
        shared.clear();
    }

    private static <T> T recording(Class<T> type, T target, String prefix, List<String> log) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            if (!QUERIES.contains(method.getName())) {
                log.add(prefix + "." + method.getName());
            }
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }));
    }

    /** Buffers whose memory type / usage bits the spy hides, to model memory that is not host-visible. */
    private final java.util.Map<Buffer, int[]> hidden = Collections.synchronizedMap(new java.util.IdentityHashMap<>());

    /** Makes the inner buffer under {@code validating} report its bits without {@code typeBits}/{@code usageBits}. */
    void hide(Buffer validating, int typeBits, int usageBits) {
        Buffer spyBuffer = ((ForwardingBuffer) validating).delegate();
        hidden.put(spyBuffer, new int[] {typeBits, usageBits});
    }

    private volatile long extraCapabilities;

    /** Makes the device report {@code bits} in addition to the inner device's capabilities. */
    void advertise(long bits) {
        extraCapabilities = bits;
    }

    @Override
    public long capabilities() {
        return super.capabilities() | extraCapabilities;
    }

    private volatile int deniedCompatibility;

    /** Makes the allocator withhold {@code bits} from every compatibility answer (a device that cannot use such memory). */
    void denyCompatibility(int bits) {
        deniedCompatibility = bits;
    }

    @Override
    protected Allocator wrapAllocator(Allocator inner) {
        return new ForwardingAllocator(this, recording(Allocator.class, inner, "allocator", shared)) {
            @Override
            public int queryBufferCompatibility(dev.ortho.hal.BufferParams params, long size) {
                return super.queryBufferCompatibility(params, size) & ~deniedCompatibility;
            }
        };
    }

    @Override
    protected Buffer wrapBuffer(Buffer inner, Buffer allocatedBuffer) {
        return new SpyBuffer(this, inner, allocatedBuffer);
    }

    @Override
    protected Semaphore wrapSemaphore(Semaphore inner) {
        return new SpySemaphore(this, inner);
    }

    @Override
    protected Event wrapEvent(Event inner) {
        return new SpyEvent(this, inner);
    }

    @Override
    protected CommandBuffer wrapCommandBuffer(CommandBuffer inner) {
        return new SpyCommandBuffer(this, inner);
    }

    @Override
    protected ExecutableCache wrapExecutableCache(ExecutableCache inner) {
        return new ForwardingExecutableCache(this, recording(ExecutableCache.class, inner, "executableCache", shared));
    }

    @Override
    protected Executable wrapExecutable(Executable inner) {
        return new SpyExecutable(this, inner);
    }

    @Override
    public Buffer unwrap(Buffer buffer) {
        return buffer instanceof SpyBuffer spy && spy.owner() == this ? spy.raw : buffer;
    }

    @Override
    public Semaphore unwrap(Semaphore semaphore) {
        return semaphore instanceof SpySemaphore spy && spy.owner() == this ? spy.raw : semaphore;
    }

    @Override
    public Event unwrap(Event event) {
        return event instanceof SpyEvent spy && spy.owner() == this ? spy.raw : event;
    }

    @Override
    public CommandBuffer unwrap(CommandBuffer commandBuffer) {
        return commandBuffer instanceof SpyCommandBuffer spy && spy.owner() == this ? spy.raw : commandBuffer;
    }

    @Override
    public Executable unwrap(Executable executable) {
        return executable instanceof SpyExecutable spy && spy.owner() == this ? spy.raw : executable;
    }

    private final class SpyBuffer extends ForwardingBuffer {
        final Buffer raw;

        SpyBuffer(SpyDevice owner, Buffer raw, Buffer allocatedBuffer) {
            super(owner, recording(Buffer.class, raw, "buffer", shared), allocatedBuffer);
            this.raw = raw;
        }

        @Override
        public int memoryType() {
            int[] bits = hidden.get(this);
            return bits == null ? super.memoryType() : super.memoryType() & ~bits[0];
        }

        @Override
        public int allowedUsage() {
            int[] bits = hidden.get(this);
            return bits == null ? super.allowedUsage() : super.allowedUsage() & ~bits[1];
        }
    }

    private final class SpySemaphore extends ForwardingSemaphore {
        final Semaphore raw;

        SpySemaphore(SpyDevice owner, Semaphore raw) {
            super(owner, recording(Semaphore.class, raw, "semaphore", shared));
            this.raw = raw;
        }
    }

    private final class SpyEvent extends ForwardingEvent {
        final Event raw;

        SpyEvent(SpyDevice owner, Event raw) {
            super(owner, recording(Event.class, raw, "event", shared));
            this.raw = raw;
        }
    }

    private final class SpyCommandBuffer extends ForwardingCommandBuffer {
        final CommandBuffer raw;

        SpyCommandBuffer(SpyDevice owner, CommandBuffer raw) {
            super(owner, recording(CommandBuffer.class, raw, "commandBuffer", shared));
            this.raw = raw;
        }
    }

    private final class SpyExecutable extends ForwardingExecutable {
        final Executable raw;

        SpyExecutable(SpyDevice owner, Executable raw) {
            super(owner, recording(Executable.class, raw, "executable", shared));
            this.raw = raw;
        }
    }

    @Override
    public String toString() {
        return "spy(" + delegate() + ")";
    }
}
