package keel.http.client;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When a failed call is tried again, and after how long. The wait runs on the call's event loop
 * timers, so a waiting retry holds no thread.
 *
 * <p>A call is retried when its connection failed ({@link ConnectionFailedException}: refused,
 * reset, closed early), when a connect or response timeout fired, or when it was answered 502, 503
 * or 504; never for a full pool, an invalid or oversized response, or a closed client. Only
 * idempotent methods (RFC 9110 §9.2.2) are retried unless {@link #includingNonIdempotent()} or
 * {@link ClientRequest#idempotent(boolean)} says otherwise. The whole call, retries and waits
 * included, stays within its {@code request-timeout}.
 *
 * @param maxRetries  tries after the first one
 * @param delay       wait before the first retry
 * @param maxDelay    the longest wait of exponential backoff
 * @param multiplier  growth of the wait per retry (1: a fixed delay)
 * @param jitter      fraction of each wait drawn at random, 0..1 (0.5: between half and all of it)
 * @param nonIdempotent true to retry any method
 */
public record RetryPolicy(int maxRetries, Duration delay, Duration maxDelay, double multiplier, double jitter,
                          boolean nonIdempotent) {
    private static final Set<String> IDEMPOTENT = Set.of("GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE");
    private static final RetryPolicy NONE = new RetryPolicy(0, Duration.ZERO, Duration.ZERO, 1, 0, false);

    public RetryPolicy {
        if (maxRetries < 0) throw new IllegalArgumentException("maxRetries must be >= 0");
        Objects.requireNonNull(delay, "delay");
        Objects.requireNonNull(maxDelay, "maxDelay");
        if (delay.isNegative() || maxDelay.compareTo(delay) < 0) throw new IllegalArgumentException("need 0 <= delay <= maxDelay");
        if (multiplier < 1) throw new IllegalArgumentException("multiplier must be >= 1");
        if (jitter < 0 || jitter > 1) throw new IllegalArgumentException("jitter must be in 0..1");
    }

    /** Never retry (the default). */
    public static RetryPolicy none() {
        return NONE;
    }

    /** {@code retries} more tries, each after {@code delay}. */
    public static RetryPolicy fixed(int retries, Duration delay) {
        return new RetryPolicy(retries, delay, delay, 1, 0, false);
    }

    /** {@code retries} more tries after {@code base}, 2×base, 4×base… capped at {@code max}, each with 50 % jitter. */
    public static RetryPolicy exponential(int retries, Duration base, Duration max) {
        return new RetryPolicy(retries, base, max, 2, 0.5, false);
    }

    /** A copy that retries every method, POST included: only for requests the server handles idempotently. */
    public RetryPolicy includingNonIdempotent() {
        return new RetryPolicy(maxRetries, delay, maxDelay, multiplier, jitter, true);
    }

    static boolean isIdempotent(String method) {
        return IDEMPOTENT.contains(method);
    }

    /** Whether retry number {@code retry} (1 for the first) may follow this failure. */
    boolean allows(int retry, boolean idempotent, Throwable failure, int status) {
        if (retry > maxRetries || !(idempotent || nonIdempotent)) return false;
        if (failure == null) return status == 502 || status == 503 || status == 504;
        if (failure instanceof ClientTimeoutException timeout) {
            return timeout.kind() == ClientTimeoutException.Kind.CONNECT || timeout.kind() == ClientTimeoutException.Kind.RESPONSE;
        }
        return failure instanceof ConnectionFailedException;
    }

    /** The wait before retry number {@code retry} (1 for the first), in nanoseconds. */
    long delayNanos(int retry) {
        double nanos = delay.toNanos() * Math.pow(multiplier, retry - 1);
        nanos = Math.min(nanos, maxDelay.toNanos());
        if (jitter > 0) nanos -= nanos * jitter * ThreadLocalRandom.current().nextDouble();
        return (long) nanos;
    }
}
