package dev.ortho.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.ortho.base.StatusException;
import dev.ortho.task.QueueProcess;
import dev.ortho.task.WorkerContext;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * task.scheduler's {@link QueueProcess} (a reusable budget-1 process running submitted items)
 * through its public API, racing the executor's own workers ({@link SharedExecutor}): the
 * first-push wake-up, close and cancel against a concurrent submit. The invariant is "every
 * accepted item runs or is abandoned exactly once; a close runs every accepted item". Each
 * arbiter closes (or has cancelled) the queue and waits, bounded, for its completion.
 */
public final class QueueProcessStress {
    private QueueProcessStress() {
    }

    /** Counts what happened to one item. */
    static final class Probe implements QueueProcess.Item {
        final AtomicInteger runs = new AtomicInteger();
        final AtomicInteger abandons = new AtomicInteger();

        @Override
        public void run(WorkerContext worker) {
            runs.incrementAndGet();
        }

        @Override
        public void abandon(StatusException reason) {
            abandons.incrementAndGet();
        }
    }

    /** The result of a queue that never completed. */
    static void hung(III_Result r) {
        r.r1 = -1;
        r.r2 = -1;
        r.r3 = -1;
    }

    static QueueProcess queue(String name, ProcessStress.Probe completion) {
        return SharedExecutor.get().newQueueProcess(name).onComplete(completion::onComplete).build();
    }

    /** Result: (runs of a, runs of b); -1, -1 if the queue never completed. */
    @JCStressTest
    @Description("QueueProcess: two producers push onto an empty queue whose process sleeps")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both items ran once")
    @Outcome(id = "-1, -1", expect = FORBIDDEN, desc = "the queue never completed after close (lost wake-up)")
    @Outcome(expect = FORBIDDEN, desc = "an item lost or run twice")
    @State
    public static class TwoProducers {
        final ProcessStress.Probe completion = new ProcessStress.Probe();
        final QueueProcess queue = queue("two-producers", completion);
        final Probe a = new Probe();
        final Probe b = new Probe();

        @Actor
        public void producerA() {
            queue.submit(a);
        }

        @Actor
        public void producerB() {
            queue.submit(b);
        }

        @Arbiter
        public void check(II_Result r) {
            queue.close();
            if (!completion.await(queue.process())) {
                r.r1 = -1;
                r.r2 = -1;
                return;
            }
            r.r1 = a.runs.get() + 10 * a.abandons.get();
            r.r2 = b.runs.get() + 10 * b.abandons.get();
        }
    }

    /**
     * Item x was submitted first (and may be running). Result: (1 if submit(a) accepted a, runs
     * of a, abandons of a); -1s if the queue never completed.
     */
    @JCStressTest
    @Description("QueueProcess: submit races close")
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "a accepted before the close took effect; it ran")
    @Outcome(id = "0, 0, 1", expect = ACCEPTABLE, desc = "a refused after close; abandoned on the submitting thread")
    @Outcome(id = "1, 0, 1", expect = FORBIDDEN, desc = "close abandoned an accepted item instead of running it")
    @Outcome(id = "-1, -1, -1", expect = FORBIDDEN, desc = "the queue never completed")
    @Outcome(expect = FORBIDDEN, desc = "a lost or handled twice")
    @State
    public static class SubmitVsClose {
        final ProcessStress.Probe completion = new ProcessStress.Probe();
        final QueueProcess queue = queue("submit-vs-close", completion);
        final Probe x = new Probe();
        final Probe a = new Probe();
        volatile boolean accepted;

        public SubmitVsClose() {
            queue.submit(x);
        }

        @Actor
        public void submit() {
            accepted = queue.submit(a);
        }

        @Actor
        public void close() {
            queue.close();
        }

        @Arbiter
        public void check(III_Result r) {
            if (!completion.await(queue.process()) || x.runs.get() != 1) {
                hung(r);
                return;
            }
            r.r1 = accepted ? 1 : 0;
            r.r2 = a.runs.get();
            r.r3 = a.abandons.get();
        }
    }

    /** Item x was submitted first. Result: (runs + abandons of x, runs of a, abandons of a). */
    @JCStressTest
    @Description("QueueProcess: submit races cancel of the underlying process")
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "a ran before the cancel took effect")
    @Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "a abandoned (by the completion or refused on submit)")
    @Outcome(id = "-1, -1, -1", expect = FORBIDDEN, desc = "the queue never completed")
    @Outcome(expect = FORBIDDEN, desc = "an item lost or handled twice")
    @State
    public static class SubmitVsCancel {
        final ProcessStress.Probe completion = new ProcessStress.Probe();
        final QueueProcess queue = queue("submit-vs-cancel", completion);
        final Probe x = new Probe();
        final Probe a = new Probe();

        public SubmitVsCancel() {
            queue.submit(x);
        }

        @Actor
        public void submit() {
            queue.submit(a);
        }

        @Actor
        public void cancel() {
            queue.process().cancel();
        }

        @Arbiter
        public void check(III_Result r) {
            if (!completion.await(queue.process())) {
                hung(r);
                return;
            }
            r.r1 = x.runs.get() + x.abandons.get();
            r.r2 = a.runs.get();
            r.r3 = a.abandons.get();
        }
    }
}
