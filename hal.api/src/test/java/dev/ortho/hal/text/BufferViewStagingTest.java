package dev.ortho.hal.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.BufferView;
import dev.ortho.hal.Device;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Proxy;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link BufferViewText#parse(String, Device)} on a device whose buffers the host cannot map: the elements are staged
 * and copied with chained queue updates of at most 64 KiB (devices in this repository all map, so
 * the device here is a minimal fake built from proxies).
 */
class BufferViewStagingTest {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Arena arena = Arena.ofShared();
    private final List<long[]> updates = new ArrayList<>(); // {offset, length, wait value, signal value}
    private final AtomicInteger references = new AtomicInteger(1);
    private MemorySegment memory;

    private Buffer deviceOnlyBuffer(long size) {
        memory = arena.allocate(Math.max(1, size), 64);
        return (Buffer) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Buffer.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "byteLength", "allocationSize" -> size;
                    case "memoryType" -> MemoryType.DEVICE_LOCAL;
                    case "allowedUsage" -> BufferUsage.DEFAULT;
                    case "retain" -> references.incrementAndGet();
                    case "release", "close" -> references.decrementAndGet();
                    case "map" -> throw new StatusException(StatusCode.PERMISSION_DENIED, "not host visible");
                    case "toString" -> "device-only buffer";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private Device device() {
        Allocator allocator = (Allocator) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Allocator.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "allocateBuffer" -> deviceOnlyBuffer((Long) args[1]);
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        return (Device) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Device.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "allocator" -> allocator;
                    case "createSemaphore" -> new TimelineSemaphore("staging", (Long) args[0]);
                    case "queueUpdate" -> {
                        SemaphoreList waits = (SemaphoreList) args[1];
                        SemaphoreList signals = (SemaphoreList) args[2];
                        MemorySegment source = (MemorySegment) args[3];
                        long offset = (Long) args[5];
                        waits.awaitAll(Timeout.immediate()); // chained: the previous chunk signalled
                        MemorySegment.copy(source, 0, memory, offset, source.byteSize());
                        updates.add(new long[] {offset, source.byteSize(), waits.value(0), signals.value(0)});
                        signals.signal();
                        yield null;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void unmappableBuffersAreFilledByChainedUpdatesOfAtMost64KiB() {
        int n = 40_000; // 160,000 bytes: chunks of 65536, 65536, 28928
        try (BufferView view = BufferViewText.parse(n + "xf32=2.5", device())) {
            assertEquals(160_000, view.byteLength());
            assertEquals(3, updates.size());
            assertEquals(List.of(0L, 65536L, 0L, 1L), List.of(updates.get(0)[0], updates.get(0)[1], updates.get(0)[2],
                    updates.get(0)[3]));
            assertEquals(List.of(131072L, 28928L, 2L, 3L), List.of(updates.get(2)[0], updates.get(2)[1],
                    updates.get(2)[2], updates.get(2)[3]));
            for (int i = 0; i < n; i++) {
                assertEquals(2.5f, memory.getAtIndex(F32, i), "element " + i);
            }
            assertEquals(1, references.get(), "the view holds the only reference");
            StatusException e = assertThrows(StatusException.class, () -> BufferViewText.format(view));
            assertEquals(StatusCode.PERMISSION_DENIED, e.code(), "formatting needs a host-visible buffer, as IREE");
        }
        assertEquals(0, references.get());
        arena.close();
    }

    @Test
    void malformedElementsNeverReachTheDevice() {
        StatusException e = assertThrows(StatusException.class, () -> BufferViewText.parse("3xi32=1 x 3", device()));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(updates.isEmpty());
        assertEquals(0, references.get(), "the staging allocation was released");
        arena.close();
    }
}
