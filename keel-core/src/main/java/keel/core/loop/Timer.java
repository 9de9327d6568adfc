package keel.core.loop;

/** A task scheduled on an event loop; {@link #cancel()} may be called from the loop thread only. */
public final class Timer implements Comparable<Timer> {
    private final long deadlineNanos;
    private final long sequence;
    private Runnable task;

    Timer(long deadlineNanos, long sequence, Runnable task) {
        this.deadlineNanos = deadlineNanos;
        this.sequence = sequence;
        this.task = task;
    }

    public void cancel() {
        task = null;
    }

    public boolean isCancelled() {
        return task == null;
    }

    long deadlineNanos() {
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
