package dev.ortho.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.vm.Context;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.ModuleRegistry;
import dev.ortho.vm.VmList;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Dictionary;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.wiring.FrameworkWiring;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Issue 15 §3 and DESIGN §3: the CPU driver bundle and the {@code hal} module bundle are stopped
 * and uninstalled while several threads invoke a program on {@code local-task} through the
 * services. Every invocation finishes or fails with CANCELLED/UNAVAILABLE, nothing hangs, a
 * device still held by someone is torn down (its calls fail with UNAVAILABLE), no worker thread
 * is left, and installing the bundles again (or restarting only the driver) makes invocations
 * work again.
 *
 * <p>This class touches no class of {@code dev.ortho.modules.hal} or {@code dev.ortho.hal.driver.cpu}
 * (the probe imports dynamically), so refreshing those bundles does not restart the probe.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class Issue15BundleStopInFlightIT {
    private static final long WAIT_NANOS = 30_000_000_000L;
    private static final String CPU_DRIVER = "dev.ortho.hal.driver.cpu";
    private static final String HAL_MODULE = "dev.ortho.modules.hal";
    private static final int THREADS = 4;
    private static final int ITERATIONS = 20;

    /**
     * {@code churn(n)}: n times, a queue alloca, fill and dealloca of 4 KiB on device 0 in fence
     * order, waiting (yielding) for the dealloca's fence; returns n, or fails with the status a
     * fence failed with.
     */
    static final String CHURN = """
            vm.module @churn version 0
            vm.dependency @hal version 7
            vm.import @hal.devices.get cconv "0i_r"
            vm.import @hal.fence.create cconv "0rI_r"
            vm.import @hal.device.queue.alloca cconv "0rIrrIiiII_r"
            vm.import @hal.device.queue.fill cconv "0rIrrrIIIiI_v"
            vm.import @hal.device.queue.dealloca cconv "0rIrrrI_v"
            vm.import @hal.fence.await cconv "0iICrD_i"

            vm.export @churn
            vm.func @churn(%i0: i32) -> (i32) {
            ^bb0:
              %i1 = vm.const.i32.zero
              %i2 = vm.const.i32 1
              %r0 = vm.call @hal.devices.get(%i1)
              %i4:5 = vm.const.i64 -1
              %i6:7 = vm.const.i64 0
              %i8:9 = vm.const.i64 4096
              %i10:11 = vm.const.i64 16909060
              %i12 = vm.const.i32 48
              %i13 = vm.const.i32 3075
              %i14 = vm.const.i32 4
              %i15 = vm.const.i32 -1
              vm.br ^bb1()
            ^bb1:
              %i16 = vm.cmp.lt.i32.s %i1, %i0
              vm.cond_br %i16, ^bb2(), ^bb4()
            ^bb2:
              %r1 = vm.const.ref.zero
              %r2 = vm.call @hal.fence.create(%r0, %i6:7)
              %r3 = vm.call @hal.device.queue.alloca(%r0, %i4:5, %r1, %r2, %i6:7, %i12, %i13, %i8:9, %i6:7)
              %r4 = vm.call @hal.fence.create(%r0, %i6:7)
              vm.call @hal.device.queue.fill(%r0, %i4:5, %r2, %r4, %r3, %i6:7, %i8:9, %i10:11, %i14, %i6:7)
              %r5 = vm.call @hal.fence.create(%r0, %i6:7)
              vm.call @hal.device.queue.dealloca(%r0, %i4:5, %r4, %r5, %r3, %i6:7)
              vm.call.variadic.yieldable @hal.fence.await segments[1, 1, 1](%i15, %i6:7, %r5) -> ^bb3(%i17)
            ^bb3:
              vm.discard.refs %r2, %r3, %r4, %r5
              vm.cond_br %i17, ^bb5(), ^bb6()
            ^bb6:
              %i1 = vm.add.i32 %i1, %i2
              vm.br ^bb1()
            ^bb4:
              vm.discard.refs %r0
              vm.return %i1
            ^bb5:
              vm.discard.refs %r0
              vm.fail %i17, "churn: a queue operation failed"
            }
            """;

    @Inject
    private BundleContext context;

    @Inject
    private ConfigurationAdmin configurations;

    @Inject
    private Instance instance;

    @Inject
    private ModuleRegistry modules;

    @Inject
    private DriverRegistry drivers;

    @Configuration
    public Option[] config() throws Exception {
        return OrthoFramework.provisioning();
    }

    @Test
    public void stoppingAndUninstallingTheDriverAndHalModuleMidInvocationLeavesNothingAndReinstallWorks()
            throws Exception {
        Set<Thread> baseline = workers();
        org.osgi.service.cm.Configuration halConfig = configurations.getConfiguration(HAL_MODULE, "?");
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put("hal.device", new String[] {"local-task"});
        halConfig.update(properties);
        try {
            awaitTrue("local-task driver and hal module provider", this::servicesReady);
            Module churn = awaitChurnModule();
            // The configuration reaches the hal module service asynchronously: once it has, the
            // service's local-task device (and its workers) outlives the invocation.
            awaitTrue("hal module over local-task", () -> {
                try {
                    assertEquals(1, invokeChurn(churn, 1));
                } catch (StatusException e) {
                    return false; // the service is being re-activated with the configuration
                }
                return !newWorkers(baseline).isEmpty();
            });
            Device held = drivers.createDevice("local-task"); // idle, never released by its holder

            AtomicInteger finished = new AtomicInteger();
            AtomicInteger cancelled = new AtomicInteger();
            List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch steady = new CountDownLatch(THREADS);
            var stopping = new java.util.concurrent.atomic.AtomicBoolean();
            List<Thread> callers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                callers.add(Thread.ofPlatform().daemon().name("issue15-caller-" + t).start(() -> {
                    while (true) {
                        Context ctx;
                        try {
                            ctx = newContext(churn);
                        } catch (RuntimeException e) {
                            if (!stopping.get()) {
                                unexpected.add(e);
                            }
                            return; // the bundles are going away: no usable hal module any more
                        }
                        try {
                            assertEquals(ITERATIONS, invoke(ctx, ITERATIONS));
                            finished.incrementAndGet();
                        } catch (StatusException e) {
                            if (e.code() == StatusCode.CANCELLED || e.code() == StatusCode.UNAVAILABLE) {
                                cancelled.incrementAndGet();
                            } else {
                                unexpected.add(e);
                            }
                        } catch (Throwable e) {
                            unexpected.add(e);
                        } finally {
                            steady.countDown();
                            ctx.close();
                        }
                    }
                }));
            }
            assertTrue("every caller finished one invocation", steady.await(60, TimeUnit.SECONDS));

            Bundle cpu = bundle(CPU_DRIVER);
            Bundle hal = bundle(HAL_MODULE);
            String cpuLocation = cpu.getLocation();
            String halLocation = hal.getLocation();
            stopping.set(true); // from now on a caller stops when it can no longer link the hal module
            bounded("stop " + CPU_DRIVER, cpu::stop);
            bounded("stop " + HAL_MODULE, hal::stop);
            bounded("uninstall " + CPU_DRIVER, cpu::uninstall);
            bounded("uninstall " + HAL_MODULE, hal::uninstall);
            for (Thread caller : callers) {
                caller.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NANOS));
                assertFalse(caller.getName() + " hangs: " + stackOf(caller), caller.isAlive());
            }
            assertTrue("invocations failed otherwise than CANCELLED/UNAVAILABLE: " + unexpected, unexpected.isEmpty());
            System.out.println("Issue15BundleStopInFlightIT: " + finished + " invocations finished, " + cancelled
                    + " failed with CANCELLED/UNAVAILABLE");

            try {
                held.createSemaphore(0);
                fail("a device of a stopped driver must be torn down");
            } catch (StatusException e) {
                assertEquals(e.toString(), StatusCode.UNAVAILABLE, e.code());
            }
            held.close();
            awaitTrue("no worker thread left (left: " + newWorkers(baseline) + ")", () -> newWorkers(baseline).isEmpty());

            // Install again; refresh rewires the bundles that used the old revisions (the launcher).
            Bundle newCpu = context.installBundle(cpuLocation);
            Bundle newHal = context.installBundle(halLocation);
            newCpu.start();
            newHal.start();
            refresh();
            awaitTrue("local-task driver and hal module provider again", this::servicesReady);
            Module churnAgain = awaitChurnModule();
            awaitTrue("an invocation after the reinstall", () -> {
                try {
                    return invokeChurn(churnAgain, 3) == 3;
                } catch (StatusException e) {
                    return false; // components still activating
                }
            });
            assertEquals(ITERATIONS, invokeChurn(churnAgain, ITERATIONS));

            // Restarting only the driver: the hal module service drops the torn-down device and
            // creates a new one once the driver is back.
            bounded("stop " + CPU_DRIVER + " again", newCpu::stop);
            newCpu.start();
            awaitTrue("an invocation after restarting only the driver", () -> {
                try {
                    return invokeChurn(churnAgain, 3) == 3;
                } catch (StatusException e) {
                    return false; // the driver's components still activating
                }
            });
        } finally {
            halConfig.delete();
        }
    }

    private boolean servicesReady() {
        boolean task = false;
        for (DriverInfo info : drivers.enumerate()) {
            task |= info.name().equals("local-task");
        }
        return task && Integer.valueOf(7).equals(modules.modules().get("hal"));
    }

    /** Loads {@code churn}, retrying while the hal module service is (re-)registering. */
    private Module awaitChurnModule() throws Exception {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (true) {
            try {
                return churnModule();
            } catch (StatusException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }

    private Module churnModule() throws Exception {
        List<InstructionExtension> extensions = new ArrayList<>();
        for (ServiceReference<InstructionExtension> ref
                : context.getServiceReferences(InstructionExtension.class, null)) {
            extensions.add(context.getService(ref));
        }
        // The hal module registers the hal ref types before a program naming them loads.
        Context probe = newContext(null);
        try {
            return BytecodeModule.create(instance, new Assembler(extensions).assemble(CHURN, "churn.vmasm"), extensions,
                    BytecodeModule.Options.DEFAULT);
        } finally {
            probe.close();
        }
    }

    /** A context with the hal module (from its service) and {@code churn} (if not null). */
    private Context newContext(Module churn) {
        Context ctx = Context.create(instance);
        try {
            Module hal = modules.create(instance, "hal", 7);
            if (churn == null) {
                modules.registerWithDependencies(ctx, hal);
            } else {
                modules.registerWithDependencies(ctx, hal, churn);
            }
            return ctx;
        } catch (RuntimeException e) {
            ctx.close();
            throw e;
        }
    }

    private int invokeChurn(Module churn, int n) {
        try (Context ctx = newContext(churn)) {
            return invoke(ctx, n);
        }
    }

    private static int invoke(Context ctx, int n) {
        VmList in = VmList.ofVariants(1);
        VmList out = VmList.ofVariants(1);
        try {
            in.pushI32(n);
            Invocation.invoke(ctx, ctx.resolveFunction("churn.churn"), in, out);
            return out.getI32(0);
        } finally {
            in.release();
            out.release();
        }
    }

    private Bundle bundle(String symbolicName) {
        for (Bundle b : context.getBundles()) {
            if (b.getSymbolicName().equals(symbolicName)) {
                return b;
            }
        }
        throw new AssertionError("no bundle " + symbolicName);
    }

    private void refresh() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        context.getBundle(0).adapt(FrameworkWiring.class).refreshBundles(null, event -> {
            if (event.getType() == FrameworkEvent.PACKAGES_REFRESHED) {
                done.countDown();
            }
        });
        assertTrue("refresh finished", done.await(60, TimeUnit.SECONDS));
    }

    private interface Action {
        void run() throws Exception;
    }

    /** Runs {@code action} on another thread and fails if it does not return within the bound. */
    private static void bounded(String what, Action action) throws Exception {
        Exception[] failure = new Exception[1];
        Thread t = Thread.ofPlatform().name(what).start(() -> {
            try {
                action.run();
            } catch (Exception e) {
                failure[0] = e;
            }
        });
        t.join(TimeUnit.NANOSECONDS.toMillis(WAIT_NANOS));
        assertFalse(what + " hangs: " + stackOf(t), t.isAlive());
        if (failure[0] != null) {
            throw failure[0];
        }
    }

    private static String stackOf(Thread t) {
        StringBuilder b = new StringBuilder();
        for (StackTraceElement e : t.getStackTrace()) {
            b.append("\n  at ").append(e);
        }
        return b.toString();
    }

    private static Set<Thread> workers() {
        Set<Thread> workers = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("ortho-worker-")) {
                workers.add(t);
            }
        }
        return workers;
    }

    private static Set<Thread> newWorkers(Set<Thread> baseline) {
        Set<Thread> now = workers();
        now.removeAll(baseline);
        return now;
    }

    private static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting: " + what);
            }
            Thread.sleep(20);
        }
    }
}
