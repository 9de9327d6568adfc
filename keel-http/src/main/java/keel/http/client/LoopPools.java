package keel.http.client;

import keel.core.buffer.BufferPool;
import keel.core.loop.EventLoop;
import keel.core.loop.Timer;
import keel.core.net.Channel;
import keel.core.net.ChannelObserver;
import keel.core.tls.Tls;
import keel.http.codec.Http1ResponseParser;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** What a client keeps on one event loop: a pool per host and a buffer pool. Confined to the loop. */
final class LoopPools {
    private static final int MAX_POOLED_BUFFERS = 64;
    private static final int HIGH_WATER_MARK = 64 * 1024;
    private static final int LOW_WATER_MARK = 32 * 1024;

    private final EventLoop loop;
    private final ClientOptions options;
    private final Resolver resolver;
    private final BufferPool buffers;
    private final Http1ResponseParser.Limits parserLimits;
    private final Channel.Settings channelSettings;
    /** The client's TLS, made on the first https call (the JDK's default context takes a while to load). */
    private final Supplier<Tls> tls;
    private final Map<String, HostPool> pools = new HashMap<>();
    /** Calls waiting out a retry delay, failed at once if the client closes meanwhile. */
    private final Map<Call, Timer> retrying = new HashMap<>();
    private boolean closed;

    LoopPools(EventLoop loop, ClientOptions options, Resolver resolver, Supplier<Tls> tls) {
        this.loop = loop;
        this.tls = tls;
        this.options = options;
        this.resolver = resolver;
        // Twice the largest head, so a head over the limit always shows as one (a buffer the head fills would stall).
        this.buffers = new BufferPool(Math.max(16 * 1024, 2 * options.maxResponseHeadSize()), MAX_POOLED_BUFFERS);
        this.parserLimits = new Http1ResponseParser.Limits(options.maxResponseHeadSize(), 100);
        // A client reads while its request is still being written: the server may answer early (a 413).
        // Calls carry their own timeouts, so a write has no bound of its own.
        this.channelSettings = new Channel.Settings(buffers, Channel.TlsBuffers.of(buffers.bufferSize(), MAX_POOLED_BUFFERS),
                HIGH_WATER_MARK, LOW_WATER_MARK, Duration.ZERO, Duration.ofSeconds(2), options.tls().handshakeTimeout(), true,
                false, ChannelObserver.NONE);
    }

    /** The pool of one origin: scheme, host and port. */
    HostPool pool(boolean secure, String host, int port) {
        return pools.computeIfAbsent(HostPool.key(secure, host, port), key -> {
            HostPool pool = new HostPool(this, secure, host, port);
            if (closed) pool.close();
            return pool;
        });
    }

    /** Fills the buffer pool so the first requests do not allocate; loop thread. */
    void prefillBuffers(int count) {
        buffers.prefill(count);
    }

    /** Forgets a pool with no connection and no waiter; the next call to its host makes a new one. */
    void remove(HostPool pool) {
        pools.remove(pool.key(), pool);
    }

    /** Runs {@code call}'s next attempt after {@code delayNanos}, on this loop's timers. */
    void waitForRetry(Call call, long delayNanos) {
        if (closed) {
            call.abandon(new HttpClientException("client closed"));
            return;
        }
        retrying.put(call, loop.schedule(delayNanos, TimeUnit.NANOSECONDS, () -> {
            retrying.remove(call);
            call.attempt();
        }));
    }

    /** Stops {@code call}'s wait for a retry; false when it was not waiting. */
    boolean cancelRetry(Call call) {
        Timer timer = retrying.remove(call);
        if (timer == null) return false;
        timer.cancel();
        return true;
    }

    void close() {
        closed = true;
        List.copyOf(pools.values()).forEach(HostPool::close);
        retrying.forEach((call, timer) -> {
            timer.cancel();
            call.abandon(new HttpClientException("client closed"));
        });
        retrying.clear();
    }

    /** Open connections of every host on this loop. */
    int openConnections() {
        return pools.values().stream().mapToInt(HostPool::openConnections).sum();
    }

    int idleConnections() {
        return pools.values().stream().mapToInt(HostPool::idleConnections).sum();
    }

    EventLoop loop() {
        return loop;
    }

    ClientOptions options() {
        return options;
    }

    Resolver resolver() {
        return resolver;
    }

    Tls tls() {
        return tls.get();
    }

    Channel.Settings channelSettings() {
        return channelSettings;
    }

    Http1ResponseParser.Limits parserLimits() {
        return parserLimits;
    }
}
