package keel.core.loop;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The timers of one event loop: a hashed timing wheel, confined to the loop thread.
 *
 * <p>Time is cut into ticks of 2<sup>20</sup> ns (about a millisecond) counted from {@code origin}. A
 * timer waits in the bucket of its deadline's tick, a doubly linked list, so scheduling and
 * cancelling are O(1) however many timers wait. The wheel has {@value #SLOTS} buckets (about 4 s):
 * a later timer shares a bucket with earlier ones and is passed over once per turn of the wheel
 * until its own tick comes. A timer never fires before its deadline, and timers due together fire
 * in deadline order, then scheduling order.
 *
 * <p>Time is passed in by the caller (nanoseconds from the loop's clock), so the wheel is tested with
 * plain numbers and no sleeping. It is bounded: scheduling past {@code capacity} waiting timers fails.
 */
final class Timers {
    static final int SLOTS = 4096;
    private static final int TICK_SHIFT = 20;

    private final Timer[] heads = new Timer[SLOTS];
    private final Timer[] tails = new Timer[SLOTS];
    private final int capacity;
    private final long origin;
    private final List<Timer> due = new ArrayList<>();
    private long sequence;
    private int waiting;
    /** Every bucket before this tick has run: a new timer never goes into an earlier one. */
    private long tick;
    /** No waiting timer is due before this time (from origin): exact, or early after a cancel. */
    private long nextDue;
    /** Buckets and timers looked at while running and searching: the work the wheel does. */
    private long visits;

    /** Where the failure of a timer's task goes; the timers due with it still run. */
    private final Consumer<Throwable> failures;

    Timers(int capacity, long originNanos, Consumer<Throwable> failures) {
        this.capacity = capacity;
        this.origin = originNanos;
        this.failures = failures;
    }

    Timer schedule(long deadlineNanos, Runnable task) {
        if (waiting >= capacity) throw new IllegalStateException("too many timers on one event loop (" + capacity + ")");
        long at = deadlineNanos - origin;
        Timer timer = new Timer(deadlineNanos, sequence++, Math.max(tick, at >> TICK_SHIFT), task);
        int slot = (int) (timer.tick & (SLOTS - 1));
        timer.wheel = this;
        timer.previous = tails[slot];
        if (tails[slot] == null) heads[slot] = timer;
        else tails[slot].next = timer;
        tails[slot] = timer;
        if (waiting++ == 0 || at - nextDue < 0) nextDue = at;
        return timer;
    }

    /** Takes {@code timer} out of its bucket. */
    void remove(Timer timer) {
        int slot = (int) (timer.tick & (SLOTS - 1));
        if (timer.previous == null) heads[slot] = timer.next;
        else timer.previous.next = timer.next;
        if (timer.next == null) tails[slot] = timer.previous;
        else timer.next.previous = timer.previous;
        timer.previous = timer.next = null;
        timer.wheel = null;
        waiting--;
    }

    /** Nanoseconds from {@code now} until the next waiting timer (or earlier), or -1 when none waits. */
    long nanosToNext(long now) {
        if (waiting == 0) return -1;
        return Math.max(0, nextDue - (now - origin));
    }

    /** Runs every timer due at {@code now}; returns how many ran. */
    int runExpired(long now) {
        long at = now - origin;
        if (waiting == 0 || at - nextDue < 0) return 0;
        long nowTick = at >> TICK_SHIFT;
        // A full turn visits every bucket: past it, a stalled loop finds nothing more.
        for (long t = tick, last = Math.min(nowTick, tick + SLOTS - 1); t <= last; t++) takeDue((int) (t & (SLOTS - 1)), at);
        tick = Math.max(tick, nowTick);
        findNextDue();
        due.sort(null);
        int ran = 0;
        for (Timer timer : due) {
            try {
                if (timer.fire()) ran++; // a timer cancelled by one that fired before it stays quiet
            } catch (Throwable failure) {
                ran++;
                failures.accept(failure);
            }
        }
        due.clear();
        return ran;
    }

    int size() {
        return waiting;
    }

    long visits() {
        return visits;
    }

    private void takeDue(int slot, long at) {
        visits++;
        for (Timer timer = heads[slot], next; timer != null; timer = next) {
            visits++;
            next = timer.next;
            if (timer.deadlineNanos() - origin - at <= 0) {
                remove(timer);
                due.add(timer);
            }
        }
    }

    /**
     * Sets {@link #nextDue} from the first bucket, this turn of the wheel, holding a timer of its own
     * tick; with none, the end of the turn, when the later timers come round.
     */
    private void findNextDue() {
        if (waiting == 0) return;
        for (long t = tick; t < tick + SLOTS; t++) {
            visits++;
            long earliest = Long.MAX_VALUE;
            boolean found = false;
            for (Timer timer = heads[(int) (t & (SLOTS - 1))]; timer != null; timer = timer.next) {
                visits++;
                long at = timer.deadlineNanos() - origin;
                if (timer.tick == t && (!found || at - earliest < 0)) {
                    earliest = at;
                    found = true;
                }
            }
            if (found) {
                nextDue = earliest;
                return;
            }
        }
        nextDue = (tick + SLOTS) << TICK_SHIFT;
    }
}
