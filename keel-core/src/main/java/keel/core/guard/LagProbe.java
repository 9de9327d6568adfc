package keel.core.guard;

import keel.core.loop.EventLoop;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * Measures how late an event loop runs a timer: about every {@code interval} it schedules one and
 * records the delay between when it was due and when it ran. A healthy loop stays under a
 * millisecond; a loop lag near the duration of a handler means that handler blocks the loop.
 *
 * <p>Each wait is drawn at random between half and one and a half intervals. With a fixed wait, a
 * loop running handlers of a steady length (say 50 ms, against a 100 ms interval) would always find
 * the probe due just as a handler ends, and report almost no lag while it is blocked all the time.
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
        scheduleFrom(loop.nanoTime());
    }

    private void scheduleFrom(long now) {
        long wait = intervalNanos / 2 + ThreadLocalRandom.current().nextLong(Math.max(1, intervalNanos));
        long due = now + wait;
        loop.schedule(wait, TimeUnit.NANOSECONDS, () -> fire(due));
    }

    private void fire(long due) {
        long now = loop.nanoTime();
        long lag = Math.max(0, now - due);
        lastLagNanos = lag;
        histogram.record(lag, TimeUnit.NANOSECONDS);
        for (LongConsumer listener : listeners) listener.accept(lag);
        scheduleFrom(now);
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
