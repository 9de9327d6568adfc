package keel.core.loop;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bounded multi-producer, single-consumer queue of tasks for one event loop.
 *
 * <p>Any thread may {@link #offer}; only the loop thread polls. The bound is enforced with a counter
 * reserved before the offer, so the queue never holds more than {@code capacity} tasks; an offer past
 * the bound fails with {@link RejectedExecutionException} instead of growing memory. A stopping loop
 * {@link #close}s the queue: from then on every offer fails, and {@link #drainAfterClose} hands over
 * every task accepted before, even one whose producer was still adding it: no task is lost.
 */
final class TaskQueue {
    /** Added to the counter by {@link #close}: an offer that sees it was refused. */
    private static final int CLOSED = 1 << 30;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    /** Reserved places (accepted tasks, some perhaps still being added), plus {@link #CLOSED} once closed. */
    private final AtomicInteger size = new AtomicInteger();
    private final int capacity;

    TaskQueue(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("task queue capacity must be >= 1: " + capacity);
        this.capacity = capacity;
    }

    void offer(Runnable task) {
        int reserved = size.incrementAndGet();
        if (reserved > capacity) {
            size.decrementAndGet();
            throw new RejectedExecutionException(reserved >= CLOSED ? "event loop stopped"
                    : "event loop task queue is full (" + capacity + " tasks)");
        }
        tasks.offer(task);
    }

    /** Refuses every offer from now on; loop thread. */
    void close() {
        size.getAndAdd(CLOSED);
    }

    /**
     * After {@link #close}: the tasks accepted before it, each handed to {@code each}, waiting for a
     * producer that reserved a place but has not added its task yet (a matter of instructions).
     */
    void drainAfterClose(java.util.function.Consumer<Runnable> each) {
        while ((size.get() & ~CLOSED) > 0) {
            Runnable task = poll();
            if (task != null) each.accept(task);
            else Thread.onSpinWait();
        }
    }

    /** Loop thread only. */
    Runnable poll() {
        Runnable task = tasks.poll();
        if (task != null) size.decrementAndGet();
        return task;
    }

    boolean isEmpty() {
        return (size.get() & ~CLOSED) == 0;
    }

    int size() {
        return size.get() & ~CLOSED;
    }

    int capacity() {
        return capacity;
    }
}
