package dev.ortho.hal.trace;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * The tiles (workgroups, transfer chunks) one executor worker ran of one region of a queue
 * operation (a barrier-separated group of commands), from its first claim in the region until it
 * found nothing more to claim there. One event per worker per region, not per tile: the worker
 * counts its tiles in {@link #tiles}. Confined to the worker thread.
 *
 * <p>Off unless a recording names it ({@code @Enabled(false)}): JFR's own {@code default} and
 * {@code profile} settings leave it off, since one event per operation would slow small calls
 * down and flood a continuous recording ({@code --trace_file} and {@code scripts/ortho.jfc} turn it on).
 */
@Name(DispatchTilesEvent.NAME)
@Label("HAL Dispatch Tiles")
@Category({"Ortho", "HAL"})
@Description("Tiles of one dispatch region run by one worker")
@StackTrace(false)
@Enabled(false)
public final class DispatchTilesEvent extends Event {
    /** The JFR event name. */
    public static final String NAME = "dev.ortho.hal.DispatchTiles";
    private static final DispatchTilesEvent PROBE = new DispatchTilesEvent();

    @Label("Device")
    public String device;
    @Label("Queue")
    public int queue;
    @Label("Worker")
    public int worker;
    @Label("Workers")
    @Description("How many workers the device's executor has (so a trace shows idle ones too)")
    public int workers;
    @Label("Region")
    public int region;
    @Label("Commands")
    @Description("The region's first command (a dispatch's export name, or fill/copy/update), and how many follow")
    public String commands;
    @Label("Tiles")
    public long tiles;

    /** Whether a recording enables this event now (one static read; allocation-free). */
    public static boolean enabled() {
        return PROBE.isEnabled();
    }
}
