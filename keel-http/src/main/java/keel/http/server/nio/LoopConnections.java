package keel.http.server.nio;

import keel.core.buffer.BufferPool;
import keel.core.loop.EventLoop;
import keel.core.net.Channel;
import keel.http.accesslog.AccessLines;
import keel.http.server.exchange.ServerContext;
import keel.http.ws.WsConnection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What one event loop keeps for its connections: their channels, the channel settings with the loop's
 * buffer pools, and a slow sweep that finishes closes begun on other threads (a response that could
 * not reach an overloaded loop). Each channel keeps its own deadline. Confined to the loop thread
 * (but {@link NioServer} holds the shared parts).
 */
final class LoopConnections {
    private static final int PREPARED_BUFFERS = 32;
    private static final long SWEEP_NANOS = TimeUnit.SECONDS.toNanos(1);
    private final EventLoop loop;
    private final NioServer server;
    private final BufferPool buffers;
    private final Channel.Settings channelSettings;
    private final Set<Channel> open = new HashSet<>();
    private final AccessLines accessLines;
    private final UntimedAnswers untimed = new UntimedAnswers();

    LoopConnections(EventLoop loop, NioServer server) {
        this.loop = loop;
        this.server = server;
        ServerContext context = server.context();
        this.buffers = new BufferPool(context.readBufferSize(), 256);
        this.accessLines = context.accessLog() == null ? null : context.accessLog().linesOf(loop);
        // The channels' settings: this loop's buffers, the water marks, the write-stall bound, the lingering drain.
        var settings = context.settings();
        Channel.TlsBuffers tlsBuffers = context.tls() == null ? null : Channel.TlsBuffers.of(buffers.bufferSize(), 64);
        Duration handshakeTimeout = context.tls() == null ? Duration.ofSeconds(10) : context.tls().handshakeTimeout();
        this.channelSettings = new Channel.Settings(buffers, tlsBuffers, settings.highWaterMark(), settings.lowWaterMark(),
                settings.timeouts().writeStall(), settings.timeouts().lingerDrain(), handshakeTimeout, false, settings.nativeIo(), context.observer());
    }

    /** The answers of the input being read on this loop that wait for their time; loop thread. */
    UntimedAnswers untimedAnswers() {
        return untimed;
    }

    /** Loop thread. */
    void startSweeping() {
        loop.schedule(SWEEP_NANOS, TimeUnit.NANOSECONDS, this::sweep);
    }

    /** Closes what the peer closed unseen, and lets quiet connections give up what only speeds up their next request. */
    private void sweep() {
        for (Channel channel : List.copyOf(open)) {
            channel.closeIfSocketClosed();
            if (!channel.isClosed() && channel.protocol() instanceof Http1Protocol exchange) exchange.trimIfQuiet();
        }
        startSweeping();
    }

    /** Warm start: the loop has run a task and its buffer pool holds buffers for the first connections. */
    void prepare() {
        buffers.prefill(PREPARED_BUFFERS);
    }

    void add(Channel channel) {
        open.add(channel);
    }

    /** A channel's close callback. */
    void remove(Channel channel) {
        if (open.remove(channel)) server.onClosed();
    }

    /** Closes, lingering, every connection waiting for its next request, and says 1001 to WebSocket sessions; loop thread. */
    void closeIdle() {
        for (Channel channel : new ArrayList<>(open)) {
            switch (channel.protocol()) {
                case Http1Protocol exchange -> exchange.closeIfIdle();
                case WsConnection session -> session.goAway();
                default -> { }
            }
        }
    }

    /** Closes every connection of this loop now; loop thread. */
    void closeAll() {
        for (Channel channel : new ArrayList<>(open)) channel.close();
    }

    /** Where this loop's connections encode their access lines; null when the access log is off. */
    AccessLines accessLines() {
        return accessLines;
    }

    Channel.Settings channelSettings() {
        return channelSettings;
    }

    ServerContext context() {
        return server.context();
    }
}
