package dev.ortho.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.ortho.hal.remote.internal.shm.Doorbell;
import dev.ortho.hal.remote.internal.shm.Mailbox;
import dev.ortho.hal.remote.internal.shm.Sleepers;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The doorbell handshake of the shared-memory transport ({@link Sleepers} over a {@link Mailbox}):
 * a side that stops spinning announces in the mailbox that it sleeps and re-checks the channel;
 * a publisher stores the state and then reads the peer's sleeper words, ringing only when one is
 * set. No lost wake-up: a sleeper that re-checked and found nothing is always rung. Each state
 * maps its own small mailbox; the arbiter unmaps it.
 */
public final class ShmDoorbellStress {
    private ShmDoorbellStress() {
    }

    /** A fresh mailbox per state (4 KiB blocks) with both sides' sleeper words. */
    public abstract static class Sides {
        final Mailbox mailbox = Mailbox.inMemory(4096, new byte[0]);
        final Sleepers parent = new Sleepers(mailbox, true);
        final Sleepers child = new Sleepers(mailbox, false);

        boolean readyForParent() {
            return mailbox.lvState(Mailbox.TO_PARENT) == Mailbox.TASK_READY;
        }
    }

    /** Result: (1 if the client's publish rang the worker's pump, 1 if the pump's re-check saw the block). */
    @JCStressTest
    @Description("a block published while the worker's pump announces its sleep")
    @Outcome(id = {"1, 0", "0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "rung, or the re-check saw the block")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost wake-up: the pump blocks and nobody rings")
    @State
    public static class PublishVsPumpSleep extends Sides {
        @Actor
        public void client(II_Result r) {
            r.r1 = (parent.publish(Mailbox.TO_CHILD, Mailbox.TASK_READY) & Sleepers.RING_PUMP) != 0 ? 1 : 0;
        }

        @Actor
        public void workerPump(II_Result r) {
            if (child.pumpMaySleepUnrung(false)) {
                r.r2 = -1; // nobody receives on the worker's side: never
                return;
            }
            child.pumpSleeps();
            r.r2 = mailbox.lvState(Mailbox.TO_CHILD) == Mailbox.TASK_READY ? 1 : 0;
        }

        @Arbiter
        public void unmap(II_Result r) {
            mailbox.close();
        }
    }

    /**
     * Futex bells: the worker's pump takes its bell word before it announces its sleep (as
     * {@code Doorbell.prepare}), the client rings by incrementing it (before the futex wake).
     * Result: (1 if the pump's re-check saw the block, 1 if the word differs from what the pump
     * took: its futex wait returns at once).
     */
    @JCStressTest
    @Description("a block published while the worker's pump takes its futex word and announces its sleep")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost wake-up: the pump's futex wait blocks and nobody rings")
    @Outcome(expect = ACCEPTABLE, desc = "the re-check saw the block, or the ring changed the word")
    @State
    public static class PublishVsFutexPumpSleep extends Sides {
        int prepared;

        @Actor
        public void client(II_Result r) {
            if ((parent.publish(Mailbox.TO_CHILD, Mailbox.TASK_READY) & Sleepers.RING_PUMP) != 0) {
                mailbox.incrementBell(false, Doorbell.PUMP);
            }
        }

        @Actor
        public void workerPump(II_Result r) {
            prepared = mailbox.lvBell(false, Doorbell.PUMP);
            if (child.pumpMaySleepUnrung(false)) {
                r.r1 = -1; // nobody receives on the worker's side: never
                return;
            }
            child.pumpSleeps();
            r.r1 = mailbox.lvState(Mailbox.TO_CHILD) == Mailbox.TASK_READY ? 1 : 0;
        }

        @Arbiter
        public void unmap(II_Result r) {
            r.r2 = mailbox.lvBell(false, Doorbell.PUMP) != prepared ? 1 : 0;
            mailbox.close();
        }
    }

    /** Result: (1 if the worker's publish rang the receiving caller, 1 if the caller's re-check saw the reply). */
    @JCStressTest
    @Description("a reply published while the client's receiving caller announces its sleep")
    @Outcome(id = {"1, 0", "0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "rung, or the re-check saw the reply")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost wake-up: the caller blocks and nobody rings")
    @State
    public static class PublishVsCallerSleep extends Sides {
        public PublishVsCallerSleep() {
            parent.callerEnters();
        }

        @Actor
        public void worker(II_Result r) {
            r.r1 = (child.publish(Mailbox.TO_PARENT, Mailbox.TASK_READY) & Sleepers.RING_CALLER) != 0 ? 1 : 0;
        }

        @Actor
        public void caller(II_Result r) {
            parent.callerSleeps();
            r.r2 = readyForParent() ? 1 : 0;
        }

        @Arbiter
        public void unmap(II_Result r) {
            mailbox.close();
        }
    }

    /**
     * Result: (1 if the leaving caller's re-check saw the reply: it wakes the pump; the pump: 1
     * blocks un-rung, 0 announced and re-checked without seeing the reply, 2 saw it; 1 if the
     * worker's publish rang the client's pump).
     */
    @JCStressTest
    @Description("a receiving caller leaves while the client's pump goes to sleep and the worker replies")
    @Outcome(id = {"0, 0, 0", "0, 1, 0"}, expect = FORBIDDEN,
            desc = "lost wake-up: the pump blocks, the caller's re-check missed the reply and nobody rang")
    @Outcome(expect = ACCEPTABLE, desc = "the pump is rung, woken by the leaving caller, or saw the reply")
    @State
    public static class CallerLeavesVsPumpSleepVsPublish extends Sides {
        public CallerLeavesVsPumpSleepVsPublish() {
            parent.callerEnters(); // a caller receives (so the pump may sleep un-rung)
        }

        @Actor
        public void caller(III_Result r) {
            parent.callerLeaves();
            r.r1 = readyForParent() ? 1 : 0;
        }

        @Actor
        public void clientPump(III_Result r) {
            if (parent.pumpMaySleepUnrung(false)) {
                r.r2 = 1;
            } else {
                parent.pumpSleeps();
                r.r2 = readyForParent() ? 2 : 0;
            }
        }

        @Actor
        public void worker(III_Result r) {
            r.r3 = (child.publish(Mailbox.TO_PARENT, Mailbox.TASK_READY) & Sleepers.RING_PUMP) != 0 ? 1 : 0;
        }

        @Arbiter
        public void unmap(III_Result r) {
            mailbox.close();
        }
    }

    /**
     * Result: (1 if the worker's TASK_DONE rang the client's pump, 1 if the pump's re-check saw the
     * channel free): a pump with bytes queued behind a busy channel waits for the worker to
     * consume the block.
     */
    @JCStressTest
    @Description("the worker consumes the client's block while the client's pump, bytes queued, announces its sleep")
    @Outcome(id = {"1, 0", "0, 1", "1, 1"}, expect = ACCEPTABLE, desc = "rung, or the re-check saw the channel free")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost wake-up: the queued bytes wait for a timer")
    @State
    public static class DoneVsPumpWaitingToSend extends Sides {
        public DoneVsPumpWaitingToSend() {
            mailbox.soState(Mailbox.TO_CHILD, Mailbox.TASK_READY); // the client's last block, not yet consumed
        }

        @Actor
        public void worker(II_Result r) {
            r.r1 = (child.publish(Mailbox.TO_CHILD, Mailbox.TASK_DONE) & Sleepers.RING_PUMP) != 0 ? 1 : 0;
        }

        @Actor
        public void clientPump(II_Result r) {
            if (!parent.pumpMaySleepUnrung(true)) {
                parent.pumpSleeps();
            }
            r.r2 = mailbox.lvState(Mailbox.TO_CHILD) == Mailbox.TASK_DONE ? 1 : 0;
        }

        @Arbiter
        public void unmap(II_Result r) {
            mailbox.close();
        }
    }
}
