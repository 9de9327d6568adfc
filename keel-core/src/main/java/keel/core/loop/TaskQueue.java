package keel.core.loop;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bounded multi-producer, single-consumer queue of tasks for one event loop.
 *
 * <p>Any thread may {@link #offer}; only the loop thread polls. The bound is enforced with a counter
 * reserved before the offer, so the queue never holds more than {@code capacity} tasks; an offer past
 * the bound fails with {@link RejectedExecutionException} instead of growing memory. A stopping loop
 * {@link #close}s the queue: from then on every offer fails, and {@link #drainAfterClose} hands over
 * every task accepted before, even one whose producer was still adding it: no task is lost.
 *
 * <p>A place can also be {@link #tryReserve reserved} ahead for a task that another thread will
 * offer later ({@link #offerReserved}, which the bound never refuses): the owner of a connection
 * reserves the place of a response while it can still answer a refusal itself.
 */
final class TaskQueue {
    /** Added to the places by {@link #close}: an offer that sees it was refused. */
    private static final int CLOSED = 1 << 30;
    private static final long ONE_RESERVATION = 1L << 32;
    private static final long PLACES = 0xFFFF_FFFFL;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    /**
     * Low 32 bits: the places taken (accepted tasks, some perhaps still being added, and reservations),
     * plus {@link #CLOSED} once closed. High 32 bits: the reservations among them. One word, so every
     * reader sees both at the same instant.
     */
    private final AtomicLong count = new AtomicLong();
    private final int capacity;

    TaskQueue(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("task queue capacity must be >= 1: " + capacity);
        this.capacity = capacity;
    }

    void offer(Runnable task) {
        int places = places(count.incrementAndGet());
        if (places > capacity) {
            count.decrementAndGet();
            throw new RejectedExecutionException(places >= CLOSED ? "event loop stopped"
                    : "event loop task queue is full (" + capacity + " tasks)");
        }
        tasks.offer(task);
    }

    /** Takes a place for a task offered later with {@link #offerReserved}; false when the queue is full or closed. */
    boolean tryReserve() {
        long after = count.addAndGet(ONE_RESERVATION + 1);
        if (places(after) > capacity) {
            count.addAndGet(-(ONE_RESERVATION + 1));
            return false;
        }
        return true;
    }

    /** Gives back {@code reservations} places reserved and not used, at once. */
    void cancelReservations(int reservations) {
        count.addAndGet(-(ONE_RESERVATION + 1) * reservations);
    }

    /** Offers the task of a place reserved before: refused only once the queue is closed (the place goes back). */
    void offerReserved(Runnable task) {
        long after = count.addAndGet(-ONE_RESERVATION); // from here the place is a task being added
        if (places(after) >= CLOSED) {
            count.decrementAndGet();
            throw new RejectedExecutionException("event loop stopped");
        }
        tasks.offer(task);
    }

    /** Refuses every offer and reservation from now on; loop thread. */
    void close() {
        count.getAndAdd(CLOSED);
    }

    /**
     * After {@link #close}: the tasks accepted before it, each handed to {@code each}, waiting for a
     * producer that took a place but has not added its task yet (a matter of instructions). Places
     * still reserved hold no task: their offers will be refused.
     */
    void drainAfterClose(java.util.function.Consumer<Runnable> each) {
        while (queued(count.get()) > 0) {
            Runnable task = poll();
            if (task != null) each.accept(task);
            else Thread.onSpinWait();
        }
    }

    /** Loop thread only. */
    Runnable poll() {
        Runnable task = tasks.poll();
        if (task != null) count.decrementAndGet();
        return task;
    }

    /** True when no task is queued or being added (reservations do not count). */
    boolean isEmpty() {
        return queued(count.get()) == 0;
    }

    /** Tasks queued or being added (reservations do not count). */
    int size() {
        return queued(count.get());
    }

    /** Places reserved and not offered yet. */
    int reserved() {
        return (int) (count.get() >>> 32);
    }

    int capacity() {
        return capacity;
    }

    private static int places(long count) {
        return (int) (count & PLACES);
    }

    private static int queued(long count) {
        return (places(count) & ~CLOSED) - (int) (count >>> 32);
    }
}
