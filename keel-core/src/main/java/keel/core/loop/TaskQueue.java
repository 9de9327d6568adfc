package keel.core.loop;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bounded multi-producer, single-consumer queue of tasks for one event loop.
 *
 * <p>Any thread may {@link #offer}; only the loop thread polls. The bound is enforced with a counter
 * reserved before the offer, so the queue never holds more than {@code capacity} tasks; an offer past
 * the bound fails with {@link RejectedExecutionException} instead of growing memory.
 */
final class TaskQueue {
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final int capacity;

    TaskQueue(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("task queue capacity must be >= 1: " + capacity);
        this.capacity = capacity;
    }

    void offer(Runnable task) {
        if (size.incrementAndGet() > capacity) {
            size.decrementAndGet();
            throw new RejectedExecutionException("event loop task queue is full (" + capacity + " tasks)");
        }
        tasks.offer(task);
    }

    /** Loop thread only. */
    Runnable poll() {
        Runnable task = tasks.poll();
        if (task != null) size.decrementAndGet();
        return task;
    }

    boolean isEmpty() {
        return size.get() == 0;
    }

    int size() {
        return size.get();
    }

    int capacity() {
        return capacity;
    }
}
