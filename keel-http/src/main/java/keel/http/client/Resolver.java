package keel.http.client;

import keel.core.log.Log;
import keel.core.loop.EventLoop;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Name resolution that never blocks a loop. An IP literal needs no lookup; a name is looked up on a
 * virtual thread (the JDK resolver blocks), at most one lookup per name at a time, and the answer is
 * kept for {@link #TTL_NANOS} (expired answers are dropped as new ones arrive). The callback always
 * runs on the caller's loop.
 */
final class Resolver {
    private static final Log LOG = Log.of(Resolver.class);
    /** As long as the JDK's own positive cache ({@code networkaddress.cache.ttl}). */
    private static final long TTL_NANOS = TimeUnit.SECONDS.toNanos(30);

    private record Entry(InetAddress address, long expiresAt) {
    }

    private final ConcurrentHashMap<String, Entry> cache = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, CompletableFuture<InetAddress>> lookups = new ConcurrentHashMap<>();

    /** Resolves {@code host} and calls {@code then(address, failure)} on {@code loop}. */
    void resolve(String host, EventLoop loop, BiConsumer<InetAddress, Throwable> then) {
        String name = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        InetAddress known = cached(name);
        if (known != null) {
            then.accept(known, null);
            return;
        }
        lookup(name).whenComplete((address, failure) -> {
            try {
                loop.execute(() -> then.accept(address, failure));
            } catch (RejectedExecutionException e) {
                LOG.debug("resolved_after_loop_stopped", "host", name, "loop", loop.name());
            }
        });
    }

    /** Resolves now, blocking the caller (warm-up, never on a loop). */
    InetAddress resolveNow(String host) throws UnknownHostException {
        InetAddress known = cached(host);
        if (known != null) return known;
        try {
            return lookup(host).join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof UnknownHostException unknown) throw unknown;
            throw e;
        }
    }

    private InetAddress cached(String name) {
        if (isLiteral(name)) {
            try {
                return InetAddress.ofLiteral(name);
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        Entry entry = cache.get(name);
        return entry != null && entry.expiresAt() - System.nanoTime() > 0 ? entry.address() : null;
    }

    private CompletableFuture<InetAddress> lookup(String name) {
        return lookups.computeIfAbsent(name, key -> {
            CompletableFuture<InetAddress> result = new CompletableFuture<>();
            Thread.ofVirtual().name("keel-resolve-" + key).start(() -> {
                try {
                    InetAddress address = InetAddress.getByName(key);
                    long now = System.nanoTime();
                    cache.values().removeIf(entry -> entry.expiresAt() - now <= 0);
                    cache.put(key, new Entry(address, now + TTL_NANOS));
                    result.complete(address);
                } catch (UnknownHostException | RuntimeException e) {
                    result.completeExceptionally(e);
                } finally {
                    lookups.remove(key);
                }
            });
            return result;
        });
    }

    private static boolean isLiteral(String name) {
        return name.indexOf(':') >= 0 || !name.isEmpty() && name.chars().allMatch(c -> c == '.' || c >= '0' && c <= '9');
    }
}
