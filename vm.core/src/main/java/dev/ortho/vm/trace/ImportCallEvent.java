package dev.ortho.vm.trace;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A call from a bytecode function into another module through an import (for example a
 * {@code hal.*} call), from the call until the callee returns, fails or yields. A callee that yields
 * (DEFERRED, e.g. a fence wait) ends the event at the yield; the resumption is not a new event.
 *
 * <p>Use {@link #start} / {@link #finish}: disabled, {@code start} returns null without
 * allocating. Confined to the calling thread.
 *
 * <p>Off unless a recording names it ({@code @Enabled(false)}): JFR's own {@code default} and
 * {@code profile} settings leave it off, since one event per operation would slow small calls
 * down and flood a continuous recording ({@code --trace_file} and {@code scripts/ortho.jfc} turn it on).
 */
@Name(ImportCallEvent.NAME)
@Label("VM Import Call")
@Category({"Ortho", "VM"})
@Description("A call across modules through an import")
@StackTrace(false)
@Enabled(false)
public final class ImportCallEvent extends Event {
    /** The JFR event name. */
    public static final String NAME = "dev.ortho.vm.ImportCall";
    private static final ImportCallEvent PROBE = new ImportCallEvent();

    @Label("Caller Module")
    public String caller;
    @Label("Callee Module")
    public String module;
    @Label("Function")
    public String function;
    @Label("Failed")
    public boolean failed;

    /** Whether a recording enables this event now (one static read; allocation-free). */
    public static boolean enabled() {
        return PROBE.isEnabled();
    }

    /** Begins an event for a call from {@code caller} into {@code module}.{@code function}, or null. */
    public static ImportCallEvent start(String caller, String module, String function) {
        if (!PROBE.isEnabled()) {
            return null;
        }
        ImportCallEvent event = new ImportCallEvent();
        event.caller = caller;
        event.module = module;
        event.function = function;
        event.begin();
        return event;
    }

    /** Ends and commits {@code event} (null: nothing), marking it failed if the callee threw. */
    public static void finish(ImportCallEvent event, boolean failed) {
        if (event != null) {
            event.failed = failed;
            event.commit();
        }
    }
}
