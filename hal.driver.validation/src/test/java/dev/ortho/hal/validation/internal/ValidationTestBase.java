package dev.ortho.hal.validation.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Driver;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.spi.DriverFactory;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A validating device over a {@link SpyDevice} over a real local-sync device, and the assertion
 * every negative test makes: {@link #rejected} checks the exact status code, that the message
 * names what it must, and that the inner device recorded no call.
 */
abstract class ValidationTestBase {
    static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final DriverFactory LOCAL_SYNC = CpuDrivers.builder().localSyncFactory();

    SpyDevice spy;
    ValidatingDevice device;

    static Device localSync() {
        try (Driver driver = LOCAL_SYNC.createDriver("local-sync")) {
            return driver.createDevice(DeviceUri.parse("local-sync://"));
        }
    }

    @BeforeEach
    final void openDevice() {
        spy = SpyDevice.over(localSync());
        device = new ValidatingDevice(spy);
    }

    @AfterEach
    final void closeDevice() {
        if (device != null) {
            try {
                device.close();
            } catch (StatusException alreadyClosedByTheTest) {
                // a test of use-after-close released it itself
            }
        }
    }

    /**
     * Runs {@code call}, which the wrapper must reject with {@code code} before the inner device
     * sees any of it; the message must contain every one of {@code mentions}.
     */
    final StatusException rejected(StatusCode code, org.junit.jupiter.api.function.Executable call,
            String... mentions) {
        spy.clear();
        StatusException e = assertThrows(StatusException.class, call);
        assertEquals(code, e.code(), e.getMessage());
        for (String mention : mentions) {
            assertTrue(e.getMessage().contains(mention), "message lacks '" + mention + "': " + e.getMessage());
        }
        assertEquals(List.of(), spy.recorded(), "the inner device saw part of a rejected call: " + e.getMessage());
        return e;
    }

    /** A host-local, mappable buffer of {@code size} bytes. */
    final Buffer allocate(long size) {
        return device.allocator().allocateBuffer(BufferParams.hostLocal(), size);
    }

    final Buffer allocate(int type, int access, int usage, long size) {
        return device.allocator().allocateBuffer(new BufferParams(type, access, usage, 0, 0), size);
    }

    static MemorySegment i32(int... values) {
        MemorySegment segment = MemorySegment.ofArray(new byte[values.length * 4]);
        for (int i = 0; i < values.length; i++) {
            segment.setAtIndex(I32, i, values[i]);
        }
        return segment;
    }

    static int[] readInts(Buffer buffer) {
        MemorySegment copy = MemorySegment.ofArray(new byte[(int) buffer.byteLength()]);
        buffer.read(0, copy);
        return copy.toArray(I32);
    }

    /** The builtin kernels (fill_x32, add_f32, mul_i32, matmul_f32) prepared on {@link #device}. */
    final Executable builtins(ExecutableCache cache) {
        return cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                JvmStaticFormat.encode(CpuDrivers.BUILTIN_KERNELS), new int[0]));
    }
}
