package dev.ortho.vm.trace;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * One synchronous host invocation of a VM function ({@code Invocation.invoke}), from entry to
 * return or failure, on the calling thread.
 *
 * <p>Use {@link #start} / {@link #finish}: when the event is disabled {@code start} returns
 * null without allocating and {@code finish(null)} does nothing. An instance is confined to the
 * thread that started it.
 *
 * <p>Recorded from 20 ms ({@code @Threshold}) unless a recording sets another threshold, as
 * JFR records the JDK's own parks; {@code --trace_file} and {@code scripts/ortho.jfc} record every one.
 */
@Name(InvocationEvent.NAME)
@Label("VM Invocation")
@Category({"Ortho", "VM"})
@Description("A host invocation of a VM function, entry to return")
@StackTrace(false)
@Threshold("20 ms")
public final class InvocationEvent extends Event {
    /** The JFR event name. */
    public static final String NAME = "dev.ortho.vm.Invocation";
    private static final InvocationEvent PROBE = new InvocationEvent();

    @Label("Module")
    public String module;
    @Label("Function")
    public String function;
    @Label("Failed")
    public boolean failed;

    /** Whether a recording enables this event now (one static read; allocation-free). */
    public static boolean enabled() {
        return PROBE.isEnabled();
    }

    /** Begins an event for {@code module}.{@code function}, or returns null when disabled. */
    public static InvocationEvent start(String module, String function) {
        if (!PROBE.isEnabled()) {
            return null;
        }
        InvocationEvent event = new InvocationEvent();
        event.module = module;
        event.function = function;
        event.begin();
        return event;
    }

    /** Ends and commits {@code event} (null: nothing), marking it failed if {@code failed}. */
    public static void finish(InvocationEvent event, boolean failed) {
        if (event != null) {
            event.failed = failed;
            event.commit();
        }
    }
}
