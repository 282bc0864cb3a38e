package dev.ortho.hal.trace;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One queue operation (alloca, dealloca, transfer, dispatch, execute, barrier, host call) from
 * its submission until it retires (its signals signalled or failed). Begun on the submitting
 * thread, committed by the retiring thread; the driver hands the instance over with the
 * operation (publication through the queue gives the ordering).
 *
 * <p>Off unless a recording names it ({@code @Enabled(false)}): JFR's own {@code default} and
 * {@code profile} settings leave it off, since one event per operation would slow small calls
 * down and flood a continuous recording ({@code --trace_file} and {@code scripts/ortho.jfc} turn it on).
 */
@Name(QueueOperationEvent.NAME)
@Label("HAL Queue Operation")
@Category({"Ortho", "HAL"})
@Description("A queue operation from submit to retire")
@StackTrace(false)
@Enabled(false)
public final class QueueOperationEvent extends Event {
    /** The JFR event name. */
    public static final String NAME = "dev.ortho.hal.QueueOperation";
    private static final QueueOperationEvent PROBE = new QueueOperationEvent();

    @Label("Device")
    public String device;
    @Label("Queue")
    public int queue;
    @Label("Kind")
    public String kind;
    @Label("Failed")
    public boolean failed;

    /** Begins an event at submission, or returns null (allocating nothing) when disabled. */
    public static QueueOperationEvent start(String device, int queue, String kind) {
        if (!PROBE.isEnabled()) {
            return null;
        }
        QueueOperationEvent event = new QueueOperationEvent();
        event.device = device;
        event.queue = queue;
        event.kind = kind;
        event.begin();
        return event;
    }

    /** Ends and commits {@code event} at retirement (null: nothing). */
    public static void finish(QueueOperationEvent event, boolean failed) {
        if (event != null) {
            event.failed = failed;
            event.commit();
        }
    }
}
