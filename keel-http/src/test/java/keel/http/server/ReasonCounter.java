package keel.http.server;

import keel.http.Rejection;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the timeouts, dropped responses, rejections and TLS handshake failures a server reports, by
 * reason (a handshake failure's reason is its {@link HandshakeFailures} string).
 */
final class ReasonCounter implements ServerObserver {
    private final Map<Object, AtomicInteger> counts = new ConcurrentHashMap<>();

    @Override
    public void onTimeout(Timeout reason) {
        add(reason);
    }

    @Override
    public void onDropped(Drop reason) {
        add(reason);
    }

    @Override
    public void onRejected(Rejection reason) {
        add(reason);
    }

    @Override
    public void onTlsHandshakeFailed(String reason) {
        add(reason);
    }

    private void add(Object reason) {
        counts.computeIfAbsent(reason, r -> new AtomicInteger()).incrementAndGet();
    }

    /** The reports of {@code reason}; null: the handshake failures of every reason. */
    int count(Object reason) {
        if (reason == null) {
            return counts.entrySet().stream().filter(e -> e.getKey() instanceof String).mapToInt(e -> e.getValue().get()).sum();
        }
        AtomicInteger count = counts.get(reason);
        return count == null ? 0 : count.get();
    }

    /** Waits up to 5 s for the {@link #count} of {@code reason} to reach {@code expected}: the server may report after the client saw the end. */
    int await(Object reason, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (count(reason) < expected && System.nanoTime() - deadline < 0) Thread.sleep(5);
        return count(reason);
    }

    @Override
    public String toString() {
        return "reasons " + counts;
    }
}
