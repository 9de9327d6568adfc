package keel.http.server;

import keel.core.buffer.BufferPool;
import keel.core.loop.EventLoop;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What one event loop keeps for its connections: their set, a buffer pool, and a sweep timer that
 * applies every connection's timeout. Confined to the loop thread (but {@link NioServer} holds the
 * shared parts). One timer per loop instead of one per request keeps the request path free of timer
 * churn; a timeout fires at most one sweep interval late.
 */
final class LoopConnections {
    private static final int PREPARED_BUFFERS = 32;
    private final EventLoop loop;
    private final NioServer server;
    private final BufferPool buffers;
    private final Set<NioConnection> open = new HashSet<>();
    private final long sweepNanos;

    LoopConnections(EventLoop loop, NioServer server) {
        this.loop = loop;
        this.server = server;
        this.buffers = new BufferPool(server.context().readBufferSize(), 256);
        var timeouts = server.context().options().timeouts();
        long shortest = Math.min(timeouts.headRead().toNanos(), Math.min(timeouts.idle().toNanos(), timeouts.lingerDrain().toNanos()));
        this.sweepNanos = Math.clamp(shortest / 4, TimeUnit.MILLISECONDS.toNanos(5), TimeUnit.SECONDS.toNanos(1));
    }

    /** Loop thread. */
    void startSweeping() {
        loop.schedule(sweepNanos, TimeUnit.NANOSECONDS, this::sweep);
    }

    private void sweep() {
        long now = loop.nanoTime();
        for (NioConnection connection : List.copyOf(open)) connection.checkTimeout(now);
        startSweeping();
    }

    /** Warm start: the loop has run a task and its buffer pool holds buffers for the first connections. */
    void prepare() {
        buffers.prefill(PREPARED_BUFFERS);
    }

    void add(NioConnection connection) {
        open.add(connection);
    }

    void remove(NioConnection connection) {
        if (open.remove(connection)) server.onClosed();
    }

    /** Closes, lingering, every connection waiting for its next request; loop thread. */
    void closeIdle() {
        for (NioConnection connection : new ArrayList<>(open)) connection.closeIfIdle();
    }

    /** Closes every connection of this loop now; loop thread. */
    void closeAll() {
        for (NioConnection connection : new ArrayList<>(open)) connection.close();
    }

    EventLoop loop() {
        return loop;
    }

    BufferPool buffers() {
        return buffers;
    }

    ServerContext context() {
        return server.context();
    }
}
