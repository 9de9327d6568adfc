package keel.http.ws;

import keel.core.loop.EventLoop;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs one session's listener callbacks one at a time, in arrival order, under its execution: inline
 * on the loop ({@code executor} null), or on the executor, where one task drains the queue until it
 * is empty (a new task starts when events arrive after that). The connection stops reading while
 * the backlog is over the high water mark (or 1 024 events), and resumes under the low one.
 */
final class Inbox {
    private static final int MAX_BACKLOG_EVENTS = 1024;

    private record Event(Runnable call, int bytes) {
    }

    private final EventLoop loop;
    private final Executor executor;
    private final Object activity;
    private final long highWaterMark;
    private final long lowWaterMark;
    private final Runnable onBacklogCleared;
    private final Runnable onRejected;
    private final ConcurrentLinkedQueue<Event> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();
    private final AtomicLong backlogBytes = new AtomicLong();
    private final AtomicInteger backlogEvents = new AtomicInteger();
    /** Set (on the loop) when reading paused for the backlog; the drainer clears it and calls back. */
    private final AtomicBoolean waitingForDrain = new AtomicBoolean();
    private volatile boolean refused;

    /**
     * @param activity         label of inline callbacks for the loop's watchdog (the route)
     * @param onBacklogCleared called on the executor's thread when a paused reader may resume
     * @param onRejected       called when the executor refused to run the callbacks (pool full)
     */
    Inbox(EventLoop loop, Executor executor, Object activity, long highWaterMark, long lowWaterMark,
          Runnable onBacklogCleared, Runnable onRejected) {
        this.loop = loop;
        this.executor = executor;
        this.activity = activity;
        this.highWaterMark = highWaterMark;
        this.lowWaterMark = lowWaterMark;
        this.onBacklogCleared = onBacklogCleared;
        this.onRejected = onRejected;
    }

    /** Loop thread. {@code bytes} is what the event holds in memory until it runs. */
    void deliver(Runnable call, int bytes) {
        if (executor == null) {
            loop.markActivity(activity);
            try {
                call.run();
            } finally {
                loop.markActivity(null);
            }
            return;
        }
        if (refused) return;
        backlogBytes.addAndGet(bytes);
        backlogEvents.incrementAndGet();
        queue.add(new Event(call, bytes));
        schedule();
    }

    /** Loop thread: true when reading should pause; the inbox then calls back once it drained enough. */
    boolean pauseReading() {
        if (backlogBytes.get() < highWaterMark && backlogEvents.get() < MAX_BACKLOG_EVENTS) return false;
        waitingForDrain.set(true);
        // The drainer may have emptied the backlog between the check and the flag: look again.
        return !(isBelowLow() && waitingForDrain.compareAndSet(true, false));
    }

    private boolean isBelowLow() {
        return backlogBytes.get() <= lowWaterMark && backlogEvents.get() <= MAX_BACKLOG_EVENTS / 2;
    }

    private void schedule() {
        if (!draining.compareAndSet(false, true)) return;
        try {
            executor.execute(this::drain);
        } catch (RejectedExecutionException e) {
            refused = true;
            queue.clear();
            draining.set(false);
            onRejected.run();
        }
    }

    private void drain() {
        Event event;
        while ((event = queue.poll()) != null) {
            event.call().run();
            backlogBytes.addAndGet(-event.bytes());
            backlogEvents.decrementAndGet();
            if (waitingForDrain.get() && isBelowLow() && waitingForDrain.compareAndSet(true, false)) onBacklogCleared.run();
        }
        draining.set(false);
        if (!queue.isEmpty()) schedule(); // an event arrived after the last poll and saw the drainer still running
    }
}
