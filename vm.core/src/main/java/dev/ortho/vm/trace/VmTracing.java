package dev.ortho.vm.trace;

/**
 * Whether the VM's JFR events can be used in this class loader. JFR instruments an event class
 * so that initializing it registers it, and registering looks up {@code jdk.jfr.internal.event}
 * through the event's own class loader: in an OSGi framework that does not boot-delegate that
 * package (Felix and Equinox by default), the first use of an event class would throw. Every hook
 * checks {@link #AVAILABLE} first, so such a host runs Ortho with tracing off instead of failing;
 * {@code ./ortho}'s framework boot-delegates the package (README, "Traces").
 *
 * <p>Thread-safe (a constant computed once); no instances.
 */
public final class VmTracing {
    /** True when the event classes initialized; false means every VM trace hook does nothing. */
    public static final boolean AVAILABLE = initializes(InvocationEvent.class.getName());

    private VmTracing() {
    }

    private static boolean initializes(String eventClass) {
        try {
            Class.forName(eventClass, true, VmTracing.class.getClassLoader());
            return true;
        } catch (Throwable unavailable) { // LinkageError or ExceptionInInitializerError from JFR's registration
            return false;
        }
    }
}
