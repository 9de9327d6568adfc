package keel.core.guard;

import keel.core.loop.EventLoop;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * Measures how late an event loop runs a timer: every {@code interval} it schedules one and records
 * the delay between when it was due and when it ran. A healthy loop stays under a millisecond; a
 * loop lag near the duration of a handler means that handler blocks the loop.
 */
public final class LagProbe {
    private final EventLoop loop;
    private final long intervalNanos;
    private final LatencyHistogram histogram = new LatencyHistogram();
    private final List<LongConsumer> listeners = new CopyOnWriteArrayList<>();
    private volatile long lastLagNanos;

    public LagProbe(EventLoop loop, long intervalNanos) {
        this.loop = loop;
        this.intervalNanos = intervalNanos;
    }

    /** Starts probing; loop thread. */
    public void start() {
        long due = loop.nanoTime() + intervalNanos;
        loop.schedule(intervalNanos, TimeUnit.NANOSECONDS, () -> fire(due));
    }

    private void fire(long due) {
        long now = loop.nanoTime();
        long lag = Math.max(0, now - due);
        lastLagNanos = lag;
        histogram.record(lag, TimeUnit.NANOSECONDS);
        for (LongConsumer listener : listeners) listener.accept(lag);
        long next = now + intervalNanos;
        loop.schedule(intervalNanos, TimeUnit.NANOSECONDS, () -> fire(next));
    }

    /** Called on the loop thread with each lag in nanoseconds (for metrics); must be cheap. */
    public void addListener(LongConsumer listener) {
        listeners.add(listener);
    }

    public LatencyHistogram histogram() {
        return histogram;
    }

    public long lastLagNanos() {
        return lastLagNanos;
    }

    public EventLoop loop() {
        return loop;
    }
}
