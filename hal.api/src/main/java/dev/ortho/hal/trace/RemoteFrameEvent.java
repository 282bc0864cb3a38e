package dev.ortho.hal.trace;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A request frame a remote HAL client sent to its device server: a call (the event spans the
 * round trip, from sending until the reply arrived or the call failed) or a one-way request (an
 * instant). Confined to the sending thread.
 *
 * <p>Off unless a recording names it ({@code @Enabled(false)}): JFR's own {@code default} and
 * {@code profile} settings leave it off, since one event per operation would slow small calls
 * down and flood a continuous recording ({@code --trace_file} and {@code scripts/ortho.jfc} turn it on).
 */
@Name(RemoteFrameEvent.NAME)
@Label("HAL Remote Frame")
@Category({"Ortho", "HAL"})
@Description("A remote HAL request frame: a call's round trip or a one-way send")
@StackTrace(false)
@Enabled(false)
public final class RemoteFrameEvent extends Event {
    /** The JFR event name. */
    public static final String NAME = "dev.ortho.hal.RemoteFrame";
    private static final RemoteFrameEvent PROBE = new RemoteFrameEvent();

    @Label("Peer")
    public String peer;
    @Label("Opcode")
    public int opcode;
    @Label("Bytes")
    @Description("The request frame's size, header included")
    @DataAmount
    public long bytes;
    @Label("One-Way")
    public boolean oneWay;
    @Label("Failed")
    @Description("A call that got no reply (the connection failed, the deadline passed, or it was interrupted)")
    public boolean failed;

    /** Whether a recording enables this event now (one static read; allocation-free). */
    public static boolean enabled() {
        return PROBE.isEnabled();
    }

    /** Begins a call's event, or returns null (allocating nothing) when disabled. */
    public static RemoteFrameEvent start(String peer, int opcode, long bytes) {
        if (!PROBE.isEnabled()) {
            return null;
        }
        RemoteFrameEvent event = new RemoteFrameEvent();
        event.peer = peer;
        event.opcode = opcode;
        event.bytes = bytes;
        event.begin();
        return event;
    }

    /** Ends and commits {@code event} (null: nothing). */
    public static void finish(RemoteFrameEvent event, boolean failed) {
        if (event != null) {
            event.failed = failed;
            event.commit();
        }
    }

    /** Records a one-way request if enabled; allocates nothing otherwise. */
    public static void oneWay(String peer, int opcode, long bytes) {
        if (PROBE.isEnabled()) {
            RemoteFrameEvent event = new RemoteFrameEvent();
            event.peer = peer;
            event.opcode = opcode;
            event.bytes = bytes;
            event.oneWay = true;
            event.commit();
        }
    }
}
