package keel.core.loop;

import java.util.PriorityQueue;

/**
 * The timers of one event loop: a min-heap ordered by deadline, confined to the loop thread.
 *
 * <p>Time is passed in by the caller (nanoseconds from the loop's clock), so the structure is
 * tested with plain numbers and no sleeping. Cancelled timers are dropped lazily when they reach the
 * head of the heap. The heap is bounded: scheduling past {@code capacity} live entries fails.
 */
final class Timers {
    private final PriorityQueue<Timer> heap = new PriorityQueue<>();
    private final int capacity;
    private long sequence;

    Timers(int capacity) {
        this.capacity = capacity;
    }

    Timer schedule(long deadlineNanos, Runnable task) {
        if (heap.size() >= capacity) {
            purgeCancelled();
            if (heap.size() >= capacity) {
                throw new IllegalStateException("too many timers on one event loop (" + capacity + ")");
            }
        }
        Timer timer = new Timer(deadlineNanos, sequence++, task);
        heap.add(timer);
        return timer;
    }

    /** Nanoseconds from {@code now} until the next live timer, or -1 when there is none. */
    long nanosToNext(long now) {
        Timer head;
        while ((head = heap.peek()) != null && head.isCancelled()) heap.poll();
        return head == null ? -1 : Math.max(0, head.deadlineNanos() - now);
    }

    /** Runs every timer due at {@code now}; returns how many ran. */
    int runExpired(long now) {
        int ran = 0;
        Timer head;
        while ((head = heap.peek()) != null && head.deadlineNanos() - now <= 0) {
            heap.poll();
            if (head.fire()) ran++;
        }
        return ran;
    }

    int size() {
        return heap.size();
    }

    private void purgeCancelled() {
        heap.removeIf(Timer::isCancelled);
    }
}
