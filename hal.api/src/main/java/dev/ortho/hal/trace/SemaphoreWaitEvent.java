package dev.ortho.hal.trace;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * A host thread blocked in a semaphore wait ({@code Semaphore.await}) because the value was not
 * yet reached; waits satisfied at once are not recorded. Confined to the waiting thread.
 *
 * <p>Recorded from 20 ms ({@code @Threshold}) unless a recording sets another threshold, as
 * JFR records the JDK's own parks; {@code --trace_file} and {@code scripts/ortho.jfc} record every one.
 */
@Name(SemaphoreWaitEvent.NAME)
@Label("HAL Semaphore Wait")
@Category({"Ortho", "HAL"})
@Description("A host thread blocked awaiting a semaphore value")
@StackTrace(false)
@Threshold("20 ms")
public final class SemaphoreWaitEvent extends Event {
    /** The JFR event name. */
    public static final String NAME = "dev.ortho.hal.SemaphoreWait";
    private static final SemaphoreWaitEvent PROBE = new SemaphoreWaitEvent();

    @Label("Semaphore")
    public String semaphore;
    @Label("Value")
    public long value;
    @Label("Failed")
    public boolean failed;

    /** Begins a wait for {@code semaphore} to reach {@code value}, or returns null when disabled. */
    public static SemaphoreWaitEvent start(String semaphore, long value) {
        if (!PROBE.isEnabled()) {
            return null;
        }
        SemaphoreWaitEvent event = new SemaphoreWaitEvent();
        event.semaphore = semaphore;
        event.value = value;
        event.begin();
        return event;
    }

    /** Ends and commits {@code event} (null: nothing). */
    public static void finish(SemaphoreWaitEvent event, boolean failed) {
        if (event != null) {
            event.failed = failed;
            event.commit();
        }
    }
}
