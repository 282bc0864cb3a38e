package dev.ortho.hal.frontier;

import static dev.ortho.hal.frontier.AxisTest.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import org.junit.jupiter.api.Test;

class ChannelAxisAndScopeTest {

    @Test
    void eightDeviceCollectiveCostsOneFrontierEntry() {
        Frontier merged = new Frontier(4);
        for (int device = 0; device < 8; device++) {
            ChannelAxis channel = new ChannelAxis(1, 0, 42);
            assertEquals(Axis.collective(1, 0, 42), channel.axis());
            long sequence = channel.nextSequence();
            assertEquals(1, sequence, "every participant numbers the same operation alike");
            Frontier participant = new Frontier(4);
            channel.recordCompletion(participant, sequence);
            merged.merge(participant);
        }
        assertEquals("{s1.c42:1}", merged.toString());
        assertFalse(merged.isTainted());
    }

    @Test
    void sequencesCountUpFromOne() {
        ChannelAxis channel = new ChannelAxis(0, 0, 7);
        assertEquals(0, channel.lastSequence());
        assertEquals(1, channel.nextSequence());
        assertEquals(2, channel.nextSequence());
        assertEquals(2, channel.lastSequence());
        Frontier frontier = new Frontier(1);
        channel.recordCompletion(frontier, 2);
        channel.recordCompletion(frontier, 1);
        assertEquals(2, frontier.epochOf(channel.axis()));
    }

    @Test
    void channelIdBeyondFortyBitsIsOutOfRange() {
        assertStatus(StatusCode.OUT_OF_RANGE, "exceeds 40 bits", () -> new ChannelAxis(0, 0, 1L << 40));
    }

    @Test
    void scopesWidenFromQueueLocalToSystem() {
        SemaphoreScope[] scopes = SemaphoreScope.values();
        assertEquals(SemaphoreScope.QUEUE_LOCAL, scopes[0]);
        assertEquals(SemaphoreScope.SYSTEM, scopes[scopes.length - 1]);
        assertTrue(SemaphoreScope.PROCESS.includes(SemaphoreScope.DEVICE));
        assertTrue(SemaphoreScope.DEVICE.includes(SemaphoreScope.DEVICE));
        assertFalse(SemaphoreScope.DEVICE.includes(SemaphoreScope.DEVICE_GROUP));
        assertFalse(SemaphoreScope.QUEUE_LOCAL.includes(SemaphoreScope.SYSTEM));
    }
}
