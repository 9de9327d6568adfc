package keel.core.guard;

import keel.core.log.Log;
import keel.core.loop.EventLoop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One daemon thread that notices event loops stuck longer than a threshold in one round (see
 * {@link EventLoop#rounds}): one handler, task or timer that runs that long, or ready channels whose
 * handlers together take that long, such as many requests that each block a little. It reports each
 * stall once with the loop's stack.
 *
 * <p>It samples every loop's round counter a few times per threshold. A loop that is not waiting in
 * {@code select} and has not started a round since the stall began is blocked; the loop itself pays
 * one ordered store per round, nothing more. Detection is late by at most one sample period.
 */
public final class LoopWatchdog implements AutoCloseable {
    private static final Log LOG = Log.of(LoopWatchdog.class);

    private final List<EventLoop> loops;
    private final long thresholdNanos;
    private final long periodNanos;
    private final Consumer<BlockedLoop> listener;
    private final Thread thread;
    private volatile boolean running = true;

    /** Per loop: the last round seen and when it was first seen. */
    private final long[] lastRound;
    private final long[] roundSeenAt;
    private final boolean[] reported;

    public LoopWatchdog(List<EventLoop> loops, Duration threshold, Consumer<BlockedLoop> listener) {
        this.loops = List.copyOf(loops);
        this.thresholdNanos = threshold.toNanos();
        this.periodNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), thresholdNanos / 4);
        this.listener = listener;
        this.lastRound = new long[loops.size()];
        this.roundSeenAt = new long[loops.size()];
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
        long round = loop.rounds();
        if (loop.isWaiting() || round != lastRound[i]) {
            lastRound[i] = round;
            roundSeenAt[i] = now;
            reported[i] = false;
            return;
        }
        long stuck = now - roundSeenAt[i];
        if (reported[i] || stuck < thresholdNanos) return;
        reported[i] = true;
        Object activity = loop.activity();
        StackTraceElement[] stack = loop.thread().getStackTrace();
        // The loop may have moved on while the stack was taken; report only a stall that is still on.
        if (loop.rounds() != round) return;
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
