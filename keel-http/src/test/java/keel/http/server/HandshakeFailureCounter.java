package keel.http.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the handshake failures a server reports, by reason. */
final class HandshakeFailureCounter implements ServerObserver {
    private final Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();

    @Override
    public void onTlsHandshakeFailed(String reason) {
        failures.computeIfAbsent(reason, r -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public String toString() {
        return "handshake failures " + failures;
    }

    /** The failures of {@code reason}, or of every reason for null. */
    int count(String reason) {
        if (reason == null) return failures.values().stream().mapToInt(AtomicInteger::get).sum();
        AtomicInteger count = failures.get(reason);
        return count == null ? 0 : count.get();
    }

    /**
     * Waits up to 5 s for the count of {@code reason} (null: any) to reach {@code expected}; the
     * server reports after the client saw the failure.
     */
    int await(String reason, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (count(reason) < expected && System.nanoTime() - deadline < 0) Thread.sleep(5);
        return count(reason);
    }
}
