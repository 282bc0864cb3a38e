package dev.ortho.hal.cpu.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class MpscQueueTest {
    static final class Item extends MpscQueue.Node {
        final int producer;
        final int sequence;

        Item(int producer, int sequence) {
            this.producer = producer;
            this.sequence = sequence;
        }
    }

    @Test
    void singleThreadedFifoAndEmptiness() {
        MpscQueue<Item> q = new MpscQueue<>();
        assertTrue(q.isEmpty());
        assertNull(q.poll());
        Item a = new Item(0, 0);
        Item b = new Item(0, 1);
        q.offer(a);
        q.offer(b);
        assertTrue(!q.isEmpty());
        assertSame(a, q.poll());
        assertSame(b, q.poll());
        assertTrue(q.isEmpty());
        assertNull(q.poll());
        q.offer(a); // nodes can be queued again once consumed
        assertSame(a, q.poll());
        assertTrue(q.isEmpty());
    }

    @Test
    void concurrentProducersLoseNothingAndKeepTheirOwnOrder() throws Exception {
        int producers = 4;
        int perProducer = 100_000;
        MpscQueue<Item> q = new MpscQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int id = p;
            Thread t = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perProducer; i++) {
                    q.offer(new Item(id, i));
                }
            });
            t.start();
            threads.add(t);
        }
        start.countDown();
        int[] next = new int[producers];
        int received = 0;
        while (received < producers * perProducer) {
            Item item = q.poll();
            if (item == null) {
                Thread.onSpinWait();
                continue;
            }
            assertEquals(next[item.producer], item.sequence, "producer " + item.producer + " order");
            next[item.producer]++;
            received++;
        }
        for (Thread t : threads) {
            t.join();
        }
        assertNull(q.poll());
        assertTrue(q.isEmpty());
    }
}
