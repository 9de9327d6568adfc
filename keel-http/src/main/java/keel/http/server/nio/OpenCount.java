package keel.http.server.nio;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A nio server's open connections: counted as the loops open and close them (any thread), and
 * waited for as the server stops, until none is left. The wait wakes at the last close, not on a
 * poll: a stop that closes idle connections returns as soon as their lingering closes end.
 */
final class OpenCount {
    private final AtomicInteger open = new AtomicInteger();

    /** A connection opened; returns how many are open now. */
    int opened() {
        return open.incrementAndGet();
    }

    /** A connection closed (or was refused after {@link #opened}); wakes a stop waiting for the last one. */
    void closed() {
        if (open.decrementAndGet() == 0) {
            synchronized (this) { // the waiter reads the count under this lock: it has read it, or waits
                notifyAll();
            }
        }
    }

    int get() {
        return open.get();
    }

    /** Waits until no connection is open or {@code deadlineNanos} ({@link System#nanoTime()}) has passed; true when none is. */
    boolean awaitNone(long deadlineNanos) throws InterruptedException {
        synchronized (this) {
            long left;
            while (open.get() > 0 && (left = deadlineNanos - System.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }
        return open.get() == 0;
    }
}
