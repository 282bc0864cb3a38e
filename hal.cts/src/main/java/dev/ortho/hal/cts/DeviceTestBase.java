package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceCapability;
import dev.ortho.hal.ExecutableParams;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.function.Executable;

/**
 * The base of every suite: a fresh device per test from {@link #createDevice()}, the
 * capabilities it has, and helpers. A driver module runs a suite with a subclass that implements
 * {@link #createDevice()} (and overrides {@link #testExecutable()} where it can).
 *
 * <p>Capabilities are derived from the device ({@link Device#capabilities()}, see
 * {@link #CAPABILITY_BITS}), so a skip always reflects what the device says of itself. Tests that
 * need a capability call {@link #require(String)}: on a device without it they are aborted, which
 * JUnit reports as skipped with the capability's name and the device's capabilities. Suites also
 * carry JUnit {@code @Tag}s named like the capabilities, so a build can exclude whole groups.
 */
public abstract class DeviceTestBase {
    /** Queue operations return before their waits are reached (not true of synchronous devices). */
    public static final String ASYNC_QUEUE = "async-queue";
    /** The device has more than one queue (queue affinity bits 0, 1 and 2 select distinct queues). */
    public static final String MULTI_QUEUE = "multi-queue";
    /** Queue alloca reuses memory freed by an earlier dealloca in stream order (pooling). */
    public static final String STREAM_ORDERED_REUSE = "stream-ordered-reuse";
    /** Signals carry frontiers across queues (seed 002). */
    public static final String FRONTIERS = "frontiers";
    /** Collective operations on channels. */
    public static final String COLLECTIVES = "collectives";
    /** Queues run operations in submission order and skip waits their own earlier operations satisfy. */
    public static final String FIFO_QUEUE = "fifo-queue";

    /** The {@link DeviceCapability} bit behind each capability name. */
    public static final Map<String, Long> CAPABILITY_BITS = Map.of(
            ASYNC_QUEUE, DeviceCapability.ASYNC_QUEUES,
            MULTI_QUEUE, DeviceCapability.MULTI_QUEUE,
            STREAM_ORDERED_REUSE, DeviceCapability.STREAM_ORDERED_REUSE,
            FRONTIERS, DeviceCapability.FRONTIERS,
            COLLECTIVES, DeviceCapability.COLLECTIVES,
            FIFO_QUEUE, DeviceCapability.FIFO_QUEUES);

    static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** The device under test; created before and closed after each test. */
    protected Device device;

    /** Creates the device under test; the suite owns and closes it. */
    protected abstract Device createDevice();

    /**
     * The capabilities (constants of this class) the device under test has: those whose
     * {@link #CAPABILITY_BITS} bit is set in {@link Device#capabilities()}. Override only to
     * narrow them (e.g. to skip a known failure, which then shows in the report).
     */
    protected Set<String> capabilities() {
        long bits = device.capabilities();
        Set<String> names = new LinkedHashSet<>();
        CAPABILITY_BITS.forEach((name, bit) -> {
            if (DeviceCapability.has(bits, bit)) {
                names.add(name);
            }
        });
        return names;
    }

    /**
     * Parameters of an executable exporting the CTS test functions, or null if the device cannot
     * run one (dispatch tests are then skipped). The functions, little-endian 32-bit elements,
     * one-dimensional ones taking {@code ceil(n / workgroupSizeX)} workgroups:
     * {@code fill_x32} (out; n, value), {@code add_f32} (lhs, rhs, out; n), {@code mul_i32}
     * (lhs, rhs, out; n) and {@code matmul_f32} (A, B, C; M, N, K) with row-major
     * {@code C = A·B} over {@code (ceil(N / sizeX), ceil(M / sizeY), 1)} workgroups.
     */
    protected ExecutableParams testExecutable() {
        return null;
    }

    @BeforeEach
    final void openDevice() {
        device = createDevice();
    }

    @AfterEach
    final void closeDevice() {
        device.close();
    }

    /** Skips the calling test (visibly) unless the device has {@code capability}. */
    protected final void require(String capability) {
        Assumptions.assumeTrue(capabilities().contains(capability), () -> "device " + device.info().name()
                + " lacks capability '" + capability + "' (it has "
                + DeviceCapability.format(device.capabilities()) + ")");
    }

    /** Skips the calling test (visibly) if the device has {@code capability}. */
    protected final void requireNot(String capability) {
        Assumptions.assumeFalse(capabilities().contains(capability), () -> "device " + device.info().name()
                + " has capability '" + capability + "', which this test's expectation excludes");
    }

    /** A host-local mappable buffer of {@code size} bytes. */
    protected final Buffer allocate(long size) {
        return device.allocator().allocateBuffer(BufferParams.hostLocal(), size);
    }

    /** A buffer holding {@code values} as little-endian int32. */
    protected final Buffer ints(int... values) {
        Buffer buffer = allocate(values.length * 4L);
        buffer.write(0, i32(values));
        return buffer;
    }

    /** The buffer's contents as little-endian int32. */
    protected static int[] readInts(Buffer buffer) {
        MemorySegment copy = MemorySegment.ofArray(new byte[(int) buffer.byteLength()]);
        buffer.read(0, copy);
        return copy.toArray(I32);
    }

    /** Bytes of {@code values} as little-endian int32 (e.g. dispatch constants). */
    protected static MemorySegment i32(int... values) {
        MemorySegment segment = MemorySegment.ofArray(new byte[values.length * 4]);
        for (int i = 0; i < values.length; i++) {
            segment.setAtIndex(I32, i, values[i]);
        }
        return segment;
    }

    /** Asserts that {@code call} throws a status with {@code code}; returns it. */
    protected static StatusException assertStatus(StatusCode code, Executable call) {
        StatusException e = assertThrows(StatusException.class, call);
        assertEquals(code, e.code(), e.getMessage());
        return e;
    }
}
