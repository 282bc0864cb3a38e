package dev.ortho.vm.trace;

import dev.ortho.vm.Function;
import dev.ortho.vm.WaitType;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * A synchronous invocation blocked on a VM wait (a {@code WAIT} frame, e.g. a fence await that
 * yielded), from the park until the wait sources were reached, failed or the deadline passed.
 *
 * <p>Use {@link #start} / {@link #finish}: disabled, {@code start} returns null without
 * allocating. Confined to the waiting thread.
 *
 * <p>Recorded from 20 ms ({@code @Threshold}) unless a recording sets another threshold, as
 * JFR records the JDK's own parks; {@code --trace_file} and {@code scripts/ortho.jfc} record every one.
 */
@Name(WaitEvent.NAME)
@Label("VM Wait")
@Category({"Ortho", "VM"})
@Description("An invocation blocked on a VM wait frame")
@StackTrace(false)
@Threshold("20 ms")
public final class WaitEvent extends Event {
    /** The JFR event name. */
    public static final String NAME = "dev.ortho.vm.Wait";
    private static final WaitEvent PROBE = new WaitEvent();

    @Label("Function")
    @Description("The function that waits")
    public String function;
    @Label("Wait Type")
    public String waitType;
    @Label("Sources")
    public int sources;
    @Label("Failed")
    public boolean failed;

    /**
     * Begins an event for {@code function} (may be null) waiting on {@code sources} sources, or
     * returns null (allocating nothing) when disabled.
     */
    public static WaitEvent start(Function function, WaitType waitType, int sources) {
        if (!PROBE.isEnabled()) {
            return null;
        }
        WaitEvent event = new WaitEvent();
        event.function = function == null ? "" : function.qualifiedName();
        event.waitType = String.valueOf(waitType);
        event.sources = sources;
        event.begin();
        return event;
    }

    /** Ends and commits {@code event} (null: nothing). */
    public static void finish(WaitEvent event, boolean failed) {
        if (event != null) {
            event.failed = failed;
            event.commit();
        }
    }
}
