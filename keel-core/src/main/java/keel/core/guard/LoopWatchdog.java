package keel.core.guard;

import keel.core.log.Log;
import keel.core.loop.EventLoop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One daemon thread that notices event loops stuck in one turn (a task, an I/O event, a handler)
 * longer than a threshold, and reports each stall once with the loop's stack.
 *
 * <p>It samples every loop's turn counter a few times per threshold. A loop that is not waiting in
 * {@code select} and has not finished a turn since the stall began is blocked; the loop itself pays
 * one ordered store per turn, nothing more. Detection is late by at most one sample period.
 */
public final class LoopWatchdog implements AutoCloseable {
    private static final Log LOG = Log.of(LoopWatchdog.class);

    private final List<EventLoop> loops;
    private final long thresholdNanos;
    private final long periodNanos;
    private final Consumer<BlockedLoop> listener;
    private final Thread thread;
    private volatile boolean running = true;

    /** Per loop: the last turn seen and when it was first seen. */
    private final long[] lastTurn;
    private final long[] turnSeenAt;
    private final boolean[] reported;

    public LoopWatchdog(List<EventLoop> loops, Duration threshold, Consumer<BlockedLoop> listener) {
        this.loops = List.copyOf(loops);
        this.thresholdNanos = threshold.toNanos();
        this.periodNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), thresholdNanos / 4);
        this.listener = listener;
        this.lastTurn = new long[loops.size()];
        this.turnSeenAt = new long[loops.size()];
        this.reported = new boolean[loops.size()];
        this.thread = Thread.ofPlatform().name("keel-loop-watchdog").daemon(true).unstarted(this::watch);
    }

    public void start() {
        thread.start();
    }

    private void watch() {
        while (running) {
            try {
                TimeUnit.NANOSECONDS.sleep(periodNanos);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (int i = 0; i < loops.size(); i++) check(i, now);
        }
    }

    private void check(int i, long now) {
        EventLoop loop = loops.get(i);
        long turn = loop.turns();
        if (loop.isWaiting() || turn != lastTurn[i]) {
            lastTurn[i] = turn;
            turnSeenAt[i] = now;
            reported[i] = false;
            return;
        }
        long stuck = now - turnSeenAt[i];
        if (reported[i] || stuck < thresholdNanos) return;
        reported[i] = true;
        Object activity = loop.activity();
        StackTraceElement[] stack = loop.thread().getStackTrace();
        // The loop may have moved on while the stack was taken; report only a stall that is still on.
        if (loop.turns() != turn) return;
        try {
            listener.accept(new BlockedLoop(loop, activity, stack, stuck));
        } catch (RuntimeException e) {
            LOG.warn("blocked_loop_listener_failed", e, "loop", loop.name());
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
