package dev.ortho.hal.trace;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A device buffer allocation (an instant, on the allocating thread). *
 * <p>Off unless a recording names it ({@code @Enabled(false)}): JFR's own {@code default} and
 * {@code profile} settings leave it off, since one event per operation would slow small calls
 * down and flood a continuous recording ({@code --trace_file} and {@code scripts/ortho.jfc} turn it on).
 */
@Name(AllocationEvent.NAME)
@Label("HAL Allocation")
@Category({"Ortho", "HAL"})
@Description("A device buffer allocation")
@StackTrace(false)
@Enabled(false)
public final class AllocationEvent extends Event {
    /** The JFR event name. */
    public static final String NAME = "dev.ortho.hal.Allocation";
    private static final AllocationEvent PROBE = new AllocationEvent();

    @Label("Allocator")
    public String allocator;
    @Label("Size")
    @DataAmount
    public long size;
    @Label("Queue-Ordered")
    @Description("Whether a queue alloca made it")
    public boolean queueOrdered;

    /** Records the allocation if enabled; allocates nothing otherwise. */
    public static void record(String allocator, long size, boolean queueOrdered) {
        if (PROBE.isEnabled()) {
            AllocationEvent event = new AllocationEvent();
            event.allocator = allocator;
            event.size = size;
            event.queueOrdered = queueOrdered;
            event.commit();
        }
    }
}
