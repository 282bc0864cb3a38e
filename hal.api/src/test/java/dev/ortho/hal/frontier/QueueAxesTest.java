package dev.ortho.hal.frontier;

import static dev.ortho.hal.frontier.AxisTest.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class QueueAxesTest {

    @Test
    void anAllocatorNeverHandsOutAPairTwiceAndAdvancesTheSessionEpoch() {
        QueueAxes axes = new QueueAxes(254, 7, 3 * 256);
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 3 * 256; i++) {
            int device = axes.allocateDevice();
            long axis = axes.queueAxis(device, 3);
            assertTrue(seen.add(axis), Axis.toString(axis));
            assertEquals(7, Axis.machine(axis));
            assertEquals((254 + i / 256) & 0xFF, Axis.session(axis), "session epoch wraps within the byte");
        }
        assertEquals(QueueAxes.EXHAUSTED, axes.allocateDevice());
        assertEquals(QueueAxes.EXHAUSTED, axes.allocateDevice(), "stays exhausted");
    }

    @Test
    void componentsOutsideTheirBitsAndForeignHandlesAreRefused() {
        assertStatus(StatusCode.OUT_OF_RANGE, "machine index 256", () -> new QueueAxes(0, 256, 1));
        assertStatus(StatusCode.OUT_OF_RANGE, "first session epoch -1", () -> new QueueAxes(-1, 0, 1));
        assertStatus(StatusCode.OUT_OF_RANGE, "capacity 65537", () -> new QueueAxes(0, 0, 65537));
        QueueAxes axes = new QueueAxes(0, 0, 4);
        assertStatus(StatusCode.OUT_OF_RANGE, "device handle 0", () -> axes.queueAxis(0, 0));
        int device = axes.allocateDevice();
        assertStatus(StatusCode.OUT_OF_RANGE, "queue index 256", () -> axes.queueAxis(device, 256));
    }

    @Test
    void theProcessAllocatorIsSharedAndHandsOutDistinctDevices() {
        assertTrue(QueueAxes.process() == QueueAxes.process());
        int a = QueueAxes.process().allocateDevice();
        int b = QueueAxes.process().allocateDevice();
        assertTrue(a != b && a != QueueAxes.EXHAUSTED && b != QueueAxes.EXHAUSTED);
        assertTrue(QueueAxes.process().queueAxis(a, 0) != QueueAxes.process().queueAxis(b, 0));
    }
}
