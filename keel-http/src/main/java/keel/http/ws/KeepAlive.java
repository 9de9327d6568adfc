package keel.http.ws;

import keel.core.loop.EventLoop;
import keel.core.loop.Timer;

import java.util.concurrent.TimeUnit;

/**
 * The idle timeout and the keep-alive pings of one open connection, as two timers on its loop. The
 * idle timer does not move on every read: when it fires early it re-arms for the rest of the quiet
 * time, so input costs one clock read. Loop thread.
 */
final class KeepAlive {
    private final EventLoop loop;
    private final long idleNanos;
    private final long pingNanos;
    private final Runnable onIdle;
    private final Runnable onPingDue;
    private long lastInput;
    private Timer idleTimer;
    private Timer pingTimer;

    /** {@code onPingDue} runs every ping interval (none when it is 0); {@code onIdle} once, after the idle timeout. */
    KeepAlive(EventLoop loop, WsOptions options, Runnable onIdle, Runnable onPingDue) {
        this.loop = loop;
        this.idleNanos = options.idleTimeout().toNanos();
        this.pingNanos = options.pingInterval().toNanos();
        this.onIdle = onIdle;
        this.onPingDue = onPingDue;
    }

    void start() {
        lastInput = loop.nanoTime();
        scheduleIdleCheck(idleNanos);
        schedulePing();
    }

    void onInput() {
        lastInput = loop.nanoTime();
    }

    void stop() {
        if (idleTimer != null) idleTimer.cancel();
        if (pingTimer != null) pingTimer.cancel();
    }

    private void scheduleIdleCheck(long delayNanos) {
        idleTimer = loop.schedule(delayNanos, TimeUnit.NANOSECONDS, () -> {
            long quiet = loop.nanoTime() - lastInput;
            if (quiet < idleNanos) scheduleIdleCheck(idleNanos - quiet);
            else onIdle.run();
        });
    }

    private void schedulePing() {
        if (pingNanos <= 0) return;
        pingTimer = loop.schedule(pingNanos, TimeUnit.NANOSECONDS, () -> {
            onPingDue.run();
            schedulePing();
        });
    }
}
