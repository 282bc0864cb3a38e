package dev.ortho.hal.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import jdk.jfr.Configuration;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.Recording;
import jdk.jfr.SettingDescriptor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A JFR recording that does not name Ortho's events (JFR's {@code default} and {@code profile}
 * settings, e.g. a service's continuous recording) must not record one event per queue operation,
 * tile region, signal, allocation or remote frame: that made every small call ~70 % slower and
 * wrote ~12 MB/s. Only a blocked semaphore wait of 20 ms or more is recorded by default, as JFR
 * records the JDK's own parks. {@code --trace_file} and {@code scripts/ortho.jfc} enable them all.
 */
class HalEventDefaultsTest {
    private static final List<Class<? extends Event>> PER_OPERATION = List.of(QueueOperationEvent.class,
            DispatchTilesEvent.class, SemaphoreSignalEvent.class, AllocationEvent.class, RemoteFrameEvent.class);

    @ParameterizedTest
    @ValueSource(strings = {"default", "profile"})
    void aRecordingWithJfrsOwnSettingsRecordsOnlySlowSemaphoreWaits(String settings) throws Exception {
        try (Recording recording = new Recording(Configuration.getConfiguration(settings))) {
            recording.start();
            for (Class<? extends Event> type : PER_OPERATION) {
                assertEquals(false, EventType.getEventType(type).isEnabled(), type.getSimpleName() + " under " + settings);
            }
            assertEquals(null, QueueOperationEvent.start("device", 0, "execute"), "a hook allocates no event");
            assertEquals(false, SemaphoreSignalEvent.enabled(), "the signal hook's probe");
            EventType waits = EventType.getEventType(SemaphoreWaitEvent.class);
            assertEquals(true, waits.isEnabled(), "SemaphoreWait under " + settings);
            assertEquals("20 ms", defaultOf(waits, "threshold"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"default", "profile"})
    void namingTheEventsInARecordingStillRecordsEveryOne(String settings) throws Exception {
        try (Recording recording = new Recording(Configuration.getConfiguration(settings))) {
            for (Class<? extends Event> type : PER_OPERATION) {
                recording.enable(type).withoutThreshold();
            }
            recording.start();
            for (Class<? extends Event> type : PER_OPERATION) {
                assertEquals(true, EventType.getEventType(type).isEnabled(), type.getSimpleName());
            }
            QueueOperationEvent event = QueueOperationEvent.start("device", 0, "execute");
            assertEquals(true, event != null, "the hook records");
            QueueOperationEvent.finish(event, false);
            assertEquals(true, SemaphoreSignalEvent.enabled(), "the signal hook's probe");
        }
    }

    private static String defaultOf(EventType type, String setting) {
        return type.getSettingDescriptors().stream().filter(d -> d.getName().equals(setting))
                .map(SettingDescriptor::getDefaultValue).findFirst().orElse("(no " + setting + " setting)");
    }
}
