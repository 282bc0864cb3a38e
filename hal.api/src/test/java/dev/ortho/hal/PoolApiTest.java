package dev.ortho.hal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.spi.ForwardingDevice;
import dev.ortho.hal.spi.ForwardingPool;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The additive pool API: defaults of {@link Device} for devices without pools, flag values, forwarding. */
class PoolApiTest {
    private final List<String> calls = new ArrayList<>();

    /** A device implementing only the abstract methods (recording them); default methods run as declared. */
    private Device device(String name) {
        DeviceInfo info = new DeviceInfo(0, name, name);
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            calls.add(method.getName() + (args == null ? 0 : args.length));
            return switch (method.getName()) {
                case "info" -> info;
                case "toString" -> "device " + name;
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> null;
            };
        };
        return (Device) Proxy.newProxyInstance(Device.class.getClassLoader(), new Class<?>[] {Device.class}, handler);
    }

    private static Pool poolOf(Device owner) {
        return (Pool) Proxy.newProxyInstance(Pool.class.getClassLoader(), new Class<?>[] {Pool.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "device" -> owner;
                    case "toString" -> "pool of " + owner.info().name();
                    default -> null;
                });
    }

    @Test
    void allocaFlagsHaveIreesValuesAndTextForm() {
        assertEquals(0L, AllocaFlags.NONE);
        assertEquals(1L, AllocaFlags.INDETERMINATE_LIFETIME);
        assertEquals(2L, AllocaFlags.ALLOW_POOL_WAIT_FRONTIER);
        assertEquals("INDETERMINATE_LIFETIME|ALLOW_POOL_WAIT_FRONTIER", AllocaFlags.format(3));
        assertEquals(2L, AllocaFlags.parse("allow_pool_wait_frontier"));
        assertEquals(StatusCode.INVALID_ARGUMENT,
                assertThrows(StatusException.class, () -> AllocaFlags.parse("NO_SUCH_FLAG")).code());
    }

    @Test
    void aDeviceWithoutPoolsReportsUnimplementedNamingItself() {
        Device d = device("plain");
        StatusException create = assertThrows(StatusException.class, () -> d.createPool(PoolParams.deviceLocal(1024)));
        assertEquals(StatusCode.UNIMPLEMENTED, create.code());
        assertTrue(create.getMessage().contains("'plain'"), create.getMessage());
        StatusException pool = assertThrows(StatusException.class, d::defaultPool);
        assertEquals(StatusCode.UNIMPLEMENTED, pool.code());
        assertTrue(pool.getMessage().contains("'plain'"), pool.getMessage());
        StatusException own = assertThrows(StatusException.class, () -> d.queueAlloca(-1, SemaphoreList.empty(),
                SemaphoreList.empty(), poolOf(d), BufferParams.deviceLocal(), 64, 0));
        assertEquals(StatusCode.UNIMPLEMENTED, own.code());
        assertTrue(own.getMessage().contains("'plain'"), own.getMessage());
    }

    @Test
    void aNullPoolIsTheSixArgumentAllocaAndAForeignPoolIsRejectedNamingBothDevices() {
        Device d = device("mine");
        assertNull(d.queueAlloca(-1, SemaphoreList.empty(), SemaphoreList.empty(), null, BufferParams.deviceLocal(),
                64, AllocaFlags.ALLOW_POOL_WAIT_FRONTIER));
        assertEquals("queueAlloca6", calls.getLast());
        StatusException e = assertThrows(StatusException.class, () -> d.queueAlloca(-1, SemaphoreList.empty(),
                SemaphoreList.empty(), poolOf(device("theirs")), BufferParams.deviceLocal(), 64, 0));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("'theirs'") && e.getMessage().contains("'mine'"), e.getMessage());
    }

    @Test
    void aForwardingDeviceWrapsPoolsItHandsOutAndGivesTheInnerDeviceItsOwn() {
        Device innerDevice = device("inner");
        Pool innerPool = poolOf(innerDevice);
        List<Object[]> received = new ArrayList<>();
        Device inner = (Device) Proxy.newProxyInstance(Device.class.getClassLoader(), new Class<?>[] {Device.class},
                (proxy, method, args) -> {
                    received.add(args);
                    return switch (method.getName()) {
                        case "createPool", "defaultPool" -> innerPool;
                        default -> null;
                    };
                });
        ForwardingDevice wrapper = new ForwardingDevice(inner) {
            @Override
            protected Pool wrapPool(Pool pool) {
                return new ForwardingPool(this, pool);
            }
        };
        Pool created = wrapper.createPool(PoolParams.deviceLocal(4096));
        assertSame(wrapper, created.device());
        assertSame(innerPool, ((ForwardingPool) created).delegate());
        assertSame(wrapper.defaultPool(), wrapper.defaultPool(), "the default pool is wrapped once");
        wrapper.queueAlloca(1, SemaphoreList.empty(), SemaphoreList.empty(), created, BufferParams.deviceLocal(), 128,
                AllocaFlags.ALLOW_POOL_WAIT_FRONTIER);
        Object[] args = received.getLast();
        assertSame(innerPool, args[3], "the inner device sees its own pool");
        assertEquals(128L, args[5]);
        assertEquals(AllocaFlags.ALLOW_POOL_WAIT_FRONTIER, args[6]);
        Pool foreign = poolOf(device("elsewhere"));
        wrapper.queueAlloca(1, SemaphoreList.empty(), SemaphoreList.empty(), foreign, BufferParams.deviceLocal(), 8, 0);
        assertSame(foreign, received.getLast()[3], "foreign pools pass through for the inner device to judge");
    }
}
