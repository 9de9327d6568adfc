package keel.http.server.exchange;

import keel.http.Response;
import keel.http.execution.Responses;

/**
 * The minimum data rate of a request body ({@code timeouts.body-min-rate}), kept the same way by both
 * transports. Each body byte buys {@code 1 / rate} seconds of time; a body starts with
 * {@code timeouts.body-rate-window} of credit and never holds more, so a client that falls that far
 * behind the rate is too slow, however fast it was before: a trickle of one byte a second cannot hold a
 * connection for the length of its body, and neither can a burst followed by a long pause. Time is the
 * caller's clock (the loop's, or {@link System#nanoTime()}). One per connection, confined to its thread.
 */
public final class BodyRate {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    /** Bytes per second; 0: off. */
    private final int rate;
    private final long windowNanos;
    /** When the body falls behind the rate, unless more arrives. */
    private long due;

    public BodyRate(ServerContext.Timeouts timeouts) {
        this.rate = timeouts.bodyMinRate();
        this.windowNanos = timeouts.bodyRateWindow().toNanos();
    }

    /** A body's first wait starts at {@code now}: it has the whole window of credit. */
    public void start(long now) {
        due = now + windowNanos;
    }

    /** {@code bytes} of the body arrived at {@code now}. */
    public void onBytes(long now, long bytes) {
        if (rate == 0 || bytes <= 0) return;
        due = Math.min(due + bytes * NANOS_PER_SECOND / rate, now + windowNanos);
    }

    /** How long the body may wait for its next bytes from {@code now}: until it is too slow, and at most {@code stallNanos}. */
    public long nanosLeft(long now, long stallNanos) {
        return rate == 0 ? stallNanos : Math.max(0, Math.min(due - now, stallNanos));
    }

    /** True when the body has fallen behind the rate at {@code now} (so an expired wait was the rate's, not the stall's). */
    public boolean isTooSlow(long now) {
        return rate != 0 && now - due >= 0;
    }

    /** The 408 of a body that fell behind the rate. */
    public Response tooSlow() {
        return Responses.error(408, "request body slower than " + rate + " bytes/s");
    }
}
