package keel.metrics;

import io.micrometer.core.instrument.Clock;

/**
 * The meter registry's clock: {@link System#nanoTime()} for durations, and a wall time read every 100 ms
 * by one daemon thread for the whole process. Micrometer reads the wall time on every record to rotate
 * the windows of a timer's maximum and histogram (minutes long), which on a request path served at a
 * million a second is two system clock reads a request for nothing: a window that turns up to 100 ms
 * late changes no figure anyone reads. (Each tick wakes the thread: at 10 ms, 0.2 % of a busy loop's
 * CPU on its one CPU, in context switches.)
 */
final class CoarseClock implements Clock {
    static final CoarseClock INSTANCE = new CoarseClock();
    static final long TICK_MILLIS = 100;

    private volatile long wallMillis = System.currentTimeMillis();

    private CoarseClock() {
        Thread.ofPlatform().daemon().name("keel-metrics-clock").start(this::tick);
    }

    private void tick() {
        while (true) {
            try {
                Thread.sleep(TICK_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            wallMillis = System.currentTimeMillis();
        }
    }

    /** The wall time of the last tick: never ahead of the system clock, at most a tick behind it (and a pause). */
    @Override
    public long wallTime() {
        return wallMillis;
    }

    @Override
    public long monotonicTime() {
        return System.nanoTime();
    }
}
