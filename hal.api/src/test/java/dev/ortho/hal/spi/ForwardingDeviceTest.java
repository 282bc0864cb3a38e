package dev.ortho.hal.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the forwarding base translates handles: identity by default, one layer of its own otherwise. */
class ForwardingDeviceTest {

    /** An inner device that records the calls it receives with their arguments. */
    private final List<Object[]> received = new ArrayList<>();
    private final Device inner = (Device) Proxy.newProxyInstance(Device.class.getClassLoader(),
            new Class<?>[] {Device.class}, (proxy, method, args) -> {
                received.add(args);
                return switch (method.getName()) {
                    case "createSemaphore" -> new TimelineSemaphore("inner", (Long) args[0]);
                    case "toString" -> "inner";
                    default -> null;
                };
            });

    private static Buffer buffer(String name) {
        return (Buffer) Proxy.newProxyInstance(Buffer.class.getClassLoader(), new Class<?>[] {Buffer.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "toString" -> name;
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> null;
                });
    }

    @Test
    void aPlainForwardingDeviceHandsOutAndPassesInnerObjectsUnchanged() {
        ForwardingDevice device = new ForwardingDevice(inner) {};
        Semaphore semaphore = device.createSemaphore(0);
        assertSame(TimelineSemaphore.class, semaphore.getClass());
        SemaphoreList list = SemaphoreList.of(semaphore, 1);
        BufferRef[] refs = {BufferRef.of(buffer("a"))};
        BindingTable table = BindingTable.of(buffer("b"));
        assertSame(list, device.unwrap(list));
        assertSame(refs, device.unwrap(refs));
        assertSame(table, device.unwrap(table));
        assertNull(device.unwrap((SemaphoreList) null));
        device.queueBarrier(-1, list, SemaphoreList.empty(), 0);
        assertSame(list, received.getLast()[1]);
    }

    @Test
    void aWrappingDeviceUnwrapsItsOwnHandlesInsideListsTablesRefsAndConfigs() {
        ForwardingDevice device = new ForwardingDevice(inner) {
            @Override
            protected Semaphore wrapSemaphore(Semaphore innerSemaphore) {
                return new ForwardingSemaphore(this, innerSemaphore);
            }
        };
        Semaphore wrapped = device.createSemaphore(0);
        Semaphore innerSemaphore = ((ForwardingSemaphore) wrapped).delegate();
        Semaphore host = new TimelineSemaphore("host", 0);
        SemaphoreList list = SemaphoreList.of(new Semaphore[] {host, wrapped}, new long[] {1, 2});
        device.queueBarrier(-1, SemaphoreList.empty(), list, 0);
        SemaphoreList seen = (SemaphoreList) received.getLast()[2];
        assertNotSame(list, seen);
        assertSame(host, seen.semaphore(0), "foreign semaphores pass through");
        assertSame(innerSemaphore, seen.semaphore(1));
        assertEquals(2, seen.value(1));

        Buffer rawBuffer = buffer("raw");
        ForwardingBuffer ours = new ForwardingBuffer(device, rawBuffer, null);
        ForwardingDevice other = new ForwardingDevice(inner) {};
        ForwardingBuffer theirs = new ForwardingBuffer(other, rawBuffer, null);
        BindingTable table = BindingTable.of(new Buffer[] {ours, theirs, null}, new long[] {4, 0, 0},
                new long[] {8, -1, -1});
        BindingTable unwrapped = device.unwrap(table);
        assertSame(rawBuffer, unwrapped.buffer(0));
        assertSame(theirs, unwrapped.buffer(1), "another wrapper's handles are not ours to unwrap");
        assertNull(unwrapped.buffer(2));
        assertEquals(4, unwrapped.offset(0));
        assertEquals(8, unwrapped.length(0));
        DispatchConfig config = device.unwrap(DispatchConfig.indirect(BufferRef.of(ours, 12, 12)));
        assertSame(rawBuffer, config.workgroupCountRef().buffer());
        assertEquals(12, config.workgroupCountRef().offset());
        BufferRef[] refs = device.unwrap(new BufferRef[] {BufferRef.slot(3, 0, 4), BufferRef.of(ours)});
        assertArrayEquals(new BufferRef[] {BufferRef.slot(3, 0, 4), BufferRef.of(rawBuffer)}, refs);
        assertSame(ours, ours.allocatedBuffer(), "a root is its own allocated buffer");
    }

    @Test
    void timepointCallbacksReceiveTheWrapper() {
        ForwardingDevice device = new ForwardingDevice(inner) {
            @Override
            protected Semaphore wrapSemaphore(Semaphore innerSemaphore) {
                return new ForwardingSemaphore(this, innerSemaphore);
            }
        };
        Semaphore wrapped = device.createSemaphore(0);
        Semaphore[] seen = new Semaphore[1];
        wrapped.addTimepoint(1, (semaphore, value, failure) -> seen[0] = semaphore);
        wrapped.signal(1);
        assertSame(wrapped, seen[0]);
    }
}
