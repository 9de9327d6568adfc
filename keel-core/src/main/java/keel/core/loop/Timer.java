package keel.core.loop;

/** A task scheduled on an event loop; {@link #cancel()} may be called from the loop thread only. */
public final class Timer implements Comparable<Timer> {
    private final long deadlineNanos;
    private final long sequence;
    private Runnable task;
    // Its place in the wheel while it waits: the tick of its deadline and its bucket's neighbours.
    final long tick;
    Timer previous;
    Timer next;
    /** The wheel that holds it; null once taken out (fired, cancelled, or about to fire). */
    Timers wheel;

    Timer(long deadlineNanos, long sequence, long tick, Runnable task) {
        this.deadlineNanos = deadlineNanos;
        this.sequence = sequence;
        this.tick = tick;
        this.task = task;
    }

    /** Never fires after this; O(1). */
    public void cancel() {
        task = null;
        if (wheel != null) wheel.remove(this);
    }

    public boolean isCancelled() {
        return task == null;
    }

    /** When it fires: the time of the loop's clock it was scheduled at. */
    public long deadlineNanos() {
        return deadlineNanos;
    }

    boolean fire() {
        Runnable toRun = task;
        task = null;
        if (toRun == null) return false;
        toRun.run();
        return true;
    }

    @Override
    public int compareTo(Timer other) {
        int byDeadline = Long.compare(deadlineNanos - other.deadlineNanos, 0);
        return byDeadline != 0 ? byDeadline : Long.compare(sequence, other.sequence);
    }
}
