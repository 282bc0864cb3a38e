package dev.ortho.task.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.task.DrainFunction;
import dev.ortho.task.DrainResult;
import dev.ortho.task.Process;
import dev.ortho.task.QueueProcess;
import dev.ortho.task.Scope;
import dev.ortho.task.WorkerContext;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

abstract class QueuePad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p10, p11, p12, p13, p14, p15, p16, p17;
}

/** The shared head: every submission CASes it, the consumer swaps it. */
abstract class QueueHead extends QueuePad0 {
    volatile Object head;
}

abstract class QueuePad1 extends QueueHead {
    long p20, p21, p22, p23, p24, p25, p26, p27;
    long p30, p31, p32, p33, p34, p35, p36, p37;
}

/** Consumer-private state: touched only by the worker draining the process. */
abstract class QueueConsumer extends QueuePad1 {
    /** Items taken from the head and not yet run, oldest first. */
    QueueProcessImpl.Node taken;
    /** Consecutive drains that found nothing (bounded spin before the process sleeps). */
    int emptyPolls;
}

abstract class QueuePad2 extends QueueConsumer {
    long p40, p41, p42, p43, p44, p45, p46, p47;
    long p50, p51, p52, p53, p54, p55, p56, p57;
}

/**
 * {@link QueueProcess}: a budget-1 {@link ProcessImpl} whose drain function runs items from an
 * intrusive lock-free stack.
 *
 * <p>Protocol. Producers push a node onto {@code head} with a CAS (a Treiber stack); the push
 * that finds the stack empty schedules the process. The consumer (only ever the one worker
 * draining the budget-1 process; drains are ordered by the process's QUEUED → DRAINING hand-over)
 * swaps the whole stack out with {@code getAndSet(null)}, reverses it into its private
 * {@code taken} list (oldest first) and runs a bounded batch. Why a push onto a non-empty stack
 * needs no schedule: the node below it was pushed onto an empty stack, and that push's schedule
 * is followed by a drain whose swap takes every node on the stack at that moment, this one
 * included (the swap and the CAS are ordered on the same variable). The queue is lock-free, not
 * wait-free: items pushed behind a first push run once that push's {@code submit} has reached
 * its schedule (a preempted first submitter delays them, never loses them).
 *
 * <p>Termination. The completion callback (which runs exactly once, on the thread that owns the
 * drain or, for a queue never scheduled, on the cancelling thread) swaps in {@link #CLOSED} and
 * abandons everything left; a producer that finds {@code CLOSED} abandons its item itself. So an
 * item is either taken by the final swap or refused, never both. A normal {@link #close()} sets
 * {@code closeRequested} and schedules; the drain that then finds the stack empty CASes
 * {@code null → CLOSED} and reports completion.
 */
final class QueueProcessImpl extends QueuePad2 implements QueueProcess, DrainFunction,
        Process.CompletionCallback {
    private static final Logger LOG = LoggerFactory.getLogger(QueueProcessImpl.class);
    /** Terminal head: no more pushes. */
    static final Object CLOSED = new Object();
    /** Empty drains a busy queue spins through (keepActive) before its process sleeps. */
    static final int SPIN_POLLS = 64;
    private static final VarHandle HEAD;
    private static final VarHandle CLOSE_REQUESTED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(QueueHead.class, "head", Object.class);
            CLOSE_REQUESTED = l.findVarHandle(QueueProcessImpl.class, "closeRequested", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A queued item; {@code next} is written before the node is published, then by the consumer. */
    static final class Node {
        final Item item;
        Node next;

        Node(Item item) {
            this.item = item;
        }
    }

    private final String name;
    private final int itemsPerDrain;
    private final Process.CompletionCallback userCallback;
    private final ProcessImpl process;
    private volatile boolean closeRequested;

    /** Builder of {@link QueueProcessImpl}; confined to one thread. */
    static final class BuilderImpl implements QueueProcess.Builder {
        private final ExecutorImpl executor;
        private final String name;
        private Scope scope;
        private Process.CompletionCallback callback;
        private int itemsPerDrain = 64;

        BuilderImpl(ExecutorImpl executor, String name) {
            this.executor = executor;
            this.name = Objects.requireNonNull(name, "name");
        }

        @Override
        public QueueProcess.Builder scope(Scope s) {
            this.scope = s;
            return this;
        }

        @Override
        public QueueProcess.Builder onComplete(Process.CompletionCallback c) {
            this.callback = c;
            return this;
        }

        @Override
        public QueueProcess.Builder itemsPerDrain(int count) {
            if (count < 1) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT,
                        "items per drain " + count + " of queue process '" + name + "' is below 1");
            }
            this.itemsPerDrain = count;
            return this;
        }

        @Override
        public QueueProcess build() {
            return new QueueProcessImpl(this);
        }
    }

    private QueueProcessImpl(BuilderImpl b) {
        this.name = b.name;
        this.itemsPerDrain = b.itemsPerDrain;
        this.userCallback = b.callback;
        ProcessBuilderImpl pb = new ProcessBuilderImpl(b.executor, b.name, this);
        pb.fixedBudget = true;
        pb.onComplete(this);
        if (b.scope != null) {
            pb.scope(b.scope);
        }
        this.process = (ProcessImpl) pb.build();  // registers; a plain store of our fields precedes it
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Process process() {
        return process;
    }

    @Override
    public boolean submit(Item item) {
        Node n = new Node(Objects.requireNonNull(item, "item"));
        if (closeRequested) {  // volatile: a submit that starts after close() returned is refused
            refuse(item);
            return false;
        }
        Object h;
        do {
            h = HEAD.getVolatile(this);
            if (h == CLOSED) {
                refuse(item);
                return false;
            }
            n.next = (Node) h;  // plain: published by the CAS
        } while (!HEAD.compareAndSet(this, h, n));  // volatile CAS: publishes the node and the item
        if (h == null) {
            process.wakeIfActivated();  // first node on an empty stack: the consumer may be asleep
        }
        return true;
    }

    @Override
    public void close() {
        CLOSE_REQUESTED.setVolatile(this, true);  // volatile: read by submit and by the drain
        process.wakeIfActivated();  // a sleeping consumer must wake to see the request
    }

    // ---- consumer side: the drain function ---------------------------------------------------

    @Override
    public void drain(Process p, WorkerContext worker, DrainResult result) {
        int ran = 0;
        while (ran < itemsPerDrain) {
            Node t = taken;
            if (t == null) {
                t = takeAll();
                if (t == null) {
                    break;
                }
            }
            taken = t.next;
            t.next = null;
            ran++;
            t.item.run(worker);  // a throw fails the process; taken already excludes this item
        }
        if (ran > 0) {
            emptyPolls = 0;
            result.didWork();
            return;
        }
        if (closeRequested) {  // volatile: pairs with close()
            if (HEAD.compareAndSet(this, null, CLOSED)) {  // volatile CAS: no push after this
                result.complete();
            } else {
                result.keepActive();  // a node arrived after our swap: run it first
            }
            return;
        }
        if (emptyPolls < SPIN_POLLS) {
            // Stay on the worker a little: a producer streaming items then finds the process
            // DRAINING, and its schedule is a store and a failed CAS instead of a queue push
            // and a wake-up.
            emptyPolls++;
            Thread.onSpinWait();
            result.keepActive();
            return;
        }
        emptyPolls = 0;  // nothing reported: the process sleeps until the next first-push schedule
    }

    /** Swaps the stack out and returns it oldest first, or null if it is empty. */
    private Node takeAll() {
        // Read first, so an empty poll does not dirty the producers' line. CLOSED is installed
        // only by this consumer's own last drain or by the completion, after the last drain.
        Object seen = HEAD.getVolatile(this);
        if (seen == null || seen == CLOSED) {
            return null;
        }
        Object h = HEAD.getAndSet(this, null);  // volatile: acquires every pushed node
        Node prev = null;
        Node cur = (Node) h;
        while (cur != null) {
            Node next = cur.next;
            cur.next = prev;
            prev = cur;
            cur = next;
        }
        return prev;
    }

    // ---- completion --------------------------------------------------------------------------

    /** The process's completion callback: close the stack, abandon what is left, tell the user. */
    @Override
    public void onComplete(Process p, StatusException error) {
        Object rest = HEAD.getAndSet(this, CLOSED);  // volatile: later pushes see CLOSED
        StatusException reason = error != null ? error : closedError();
        Node t = taken;
        taken = null;
        abandonAll(t, reason);
        if (rest instanceof Node n) {
            Node oldestFirst = null;
            while (n != null) {
                Node next = n.next;
                n.next = oldestFirst;
                oldestFirst = n;
                n = next;
            }
            abandonAll(oldestFirst, reason);
        }
        if (userCallback != null) {
            userCallback.onComplete(p, error);  // ProcessImpl logs what this throws
        }
    }

    private void abandonAll(Node n, StatusException reason) {
        while (n != null) {
            abandon(n.item, reason);
            n = n.next;
        }
    }

    private void refuse(Item item) {
        StatusException e = process.error();
        abandon(item, e != null ? e : closedError());
    }

    private StatusException closedError() {
        return new StatusException(StatusCode.FAILED_PRECONDITION, "queue process '" + name + "' is closed");
    }

    private void abandon(Item item, StatusException reason) {
        try {
            item.abandon(reason);
        } catch (RuntimeException e) {
            LOG.warn("abandon of an item of queue process '{}' threw", name, e);
        }
    }

    @Override
    public String toString() {
        return "QueueProcess[" + name + ", " + process.state() + "]";
    }
}
