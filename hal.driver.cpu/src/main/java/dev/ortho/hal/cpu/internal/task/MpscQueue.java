package dev.ortho.hal.cpu.internal.task;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An intrusive multi-producer single-consumer FIFO (Vyukov's node queue): producers link their
 * node with one {@code getAndSet} and one release store, never a lock or an allocation; the one
 * consumer at a time pops from the tail. Used for a queue's ready list (producers: semaphore
 * timepoint callbacks and submitting threads; consumer: the queue process) and for the pending
 * executions of a block processor.
 *
 * <p>{@link #poll()} may return null while a push is half done even though the queue is not
 * empty ({@link #isEmpty()} false); the pusher completes it within a few instructions.
 * Thread-safety: {@link #offer} from any thread; {@link #poll} by one thread at a time, with a
 * happens-before edge between successive consumers (the executor's hand-off or a claim CAS).
 *
 * @param <N> the node type
 */
final class MpscQueue<N extends MpscQueue.Node> {
    /** The link every element carries; an element is in at most one queue at a time. */
    abstract static class Node {
        volatile Node next;
    }

    private static final class Stub extends Node {
    }

    private static final VarHandle HEAD;
    private static final VarHandle NEXT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(MpscQueue.class, "head", Node.class);
            NEXT = l.findVarHandle(Node.class, "next", Node.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Node stub = new Stub();
    /** Producer end: the most recently pushed node. */
    private volatile Node head = stub;
    /** Consumer end; written only by the consumer, volatile so {@link #isEmpty} may read it. */
    private volatile Node tail = stub;

    /** Appends {@code node}. Lock-free, allocation-free. */
    void offer(N node) {
        push(node);
    }

    private void push(Node node) {
        NEXT.setRelease(node, (Node) null);
        // getAndSet (volatile): serialises producers; the previous head is ours to link.
        Node previous = (Node) HEAD.getAndSet(this, node);
        // release: pairs with the consumer's acquire of next; publishes the node's fields.
        NEXT.setRelease(previous, node);
    }

    /**
     * Whether no node is queued: true only when every pushed node was consumed. A snapshot: an
     * {@link #offer} that returned before this call is always seen.
     */
    boolean isEmpty() {
        // volatile reads: tail pairs with the consumer's stores, head with the producers' getAndSet.
        // A node left behind by a poll that raced a half-done push keeps tail off the stub.
        return tail == stub && head == stub;
    }

    /** Removes the oldest node, or returns null if none is (completely) queued. Single consumer. */
    @SuppressWarnings("unchecked")
    N poll() {
        Node t = tail;
        Node next = (Node) NEXT.getAcquire(t); // acquire: pairs with the producer's release link
        if (t == stub) {
            if (next == null) {
                return null;
            }
            tail = next;
            t = next;
            next = (Node) NEXT.getAcquire(next);
        }
        if (next != null) {
            tail = next;
            return (N) t;
        }
        if (t != head) {
            return null; // a producer swapped head but has not linked yet
        }
        push(stub);
        next = (Node) NEXT.getAcquire(t);
        if (next != null) {
            tail = next;
            return (N) t;
        }
        return null;
    }
}
