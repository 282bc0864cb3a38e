package dev.ortho.hal.trace;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A device buffer allocation (an instant, on the allocating thread). */
@Name(AllocationEvent.NAME)
@Label("HAL Allocation")
@Category({"Ortho", "HAL"})
@Description("A device buffer allocation")
@StackTrace(false)
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
