package dev.ortho.hal.trace;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A semaphore signalled to a new value (an instant, on the signalling thread). *
 * <p>Off unless a recording names it ({@code @Enabled(false)}): JFR's own {@code default} and
 * {@code profile} settings leave it off, since one event per operation would slow small calls
 * down and flood a continuous recording ({@code --trace_file} and {@code scripts/ortho.jfc} turn it on).
 */
@Name(SemaphoreSignalEvent.NAME)
@Label("HAL Semaphore Signal")
@Category({"Ortho", "HAL"})
@Description("A semaphore signalled to a new value")
@StackTrace(false)
@Enabled(false)
public final class SemaphoreSignalEvent extends Event {
    /** The JFR event name. */
    public static final String NAME = "dev.ortho.hal.SemaphoreSignal";
    private static final SemaphoreSignalEvent PROBE = new SemaphoreSignalEvent();

    @Label("Semaphore")
    public String semaphore;
    @Label("Value")
    public long value;

    /**
     * Whether a recording enables this event now (one static read; allocation-free): callers
     * whose semaphore name is costly to build check this first.
     *
     * @since 1.1
     */
    public static boolean enabled() {
        return PROBE.isEnabled();
    }

    /** Records the signal if enabled; allocates nothing otherwise. */
    public static void record(String semaphore, long value) {
        if (PROBE.isEnabled()) {
            SemaphoreSignalEvent event = new SemaphoreSignalEvent();
            event.semaphore = semaphore;
            event.value = value;
            event.commit();
        }
    }
}
