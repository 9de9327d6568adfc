package keel.http.server;

import keel.core.buffer.BufferPool;
import keel.core.net.Channel;
import keel.core.tls.Tls;
import keel.http.accesslog.AccessLog;
import keel.http.codec.Http1Parser;
import keel.http.codec.Http1Writer;
import keel.http.execution.Dispatcher;
import keel.http.router.Route;
import keel.http.router.RouteMatch;
import keel.http.router.RouteTable;
import keel.http.ws.WsConnection;
import keel.http.ws.WsHandshake;

import java.time.Duration;
import javax.net.ssl.SSLEngine;

/** What both transports share for one running server: options, dispatcher, observer, TLS, access log, and whether it is stopping. */
final class ServerContext {
    private final ServerOptions options;
    private final Dispatcher dispatcher;
    private final ServerObserver observer;
    private final Tls tls;
    private final AccessLog accessLog;
    private final Http1Parser.Limits parserLimits;
    private final int readBufferSize;
    private final WsConnection.Settings webSocketSettings;
    private volatile boolean stopping;

    ServerContext(ServerOptions options, Dispatcher dispatcher, ServerObserver observer, Tls tls, AccessLog accessLog) {
        this.options = options;
        this.dispatcher = dispatcher;
        this.observer = observer;
        this.tls = tls;
        this.accessLog = accessLog;
        var limits = options.limits();
        this.parserLimits = new Http1Parser.Limits(limits.maxHeadSize(), limits.maxHeaderCount(), limits.maxBodySize(),
                bodyLimit(dispatcher.routes(), limits.maxBodySize()));
        // Larger than the head limit, so a buffer full of head bytes always means 431, never a stall.
        this.readBufferSize = Math.max(16 * 1024, Integer.highestOneBit(limits.maxHeadSize()) * 2);
        Http1Writer.prepare();
        if (dispatcher.routes().routes().stream().anyMatch(route -> route.endpoint() instanceof Route.WebSocket)) WsHandshake.prepare();
        this.webSocketSettings = new WsConnection.Settings(options.webSocket(), options.waterMarks().high(),
                options.waterMarks().low(), observer.webSockets());
    }

    /** The body limit of the route a request goes to, when any route has its own; else null (the server's, with no lookup). */
    private static Http1Parser.BodyLimit bodyLimit(RouteTable routes, long serverLimit) {
        if (routes.routes().stream().noneMatch(route -> route.isSet(Route.Setting.MAX_BODY_SIZE))) return null;
        return (method, target) -> {
            int query = target.indexOf('?');
            try {
                return routes.match(method, query < 0 ? target : target.substring(0, query)) instanceof RouteMatch.Found found
                        ? found.route().maxBodySizeOr(serverLimit) : serverLimit;
            } catch (RuntimeException badPath) {
                return serverLimit; // the dispatcher answers it
            }
        };
    }

    /**
     * The settings of one loop's channels: its input buffers, the water marks, the bound of a write
     * that makes no progress, the lingering close's drain time.
     */
    Channel.Settings channelSettings(BufferPool buffers) {
        Channel.TlsBuffers tlsBuffers = tls == null ? null : Channel.TlsBuffers.of(buffers.bufferSize(), 64);
        Duration handshakeTimeout = tls == null ? Duration.ofSeconds(10) : tls.handshakeTimeout();
        return new Channel.Settings(buffers, tlsBuffers, options.waterMarks().high(), options.waterMarks().low(),
                options.timeouts().writeStall(), options.timeouts().lingerDrain(), handshakeTimeout, false, options.nativeIo(), observer);
    }

    /** A server-mode engine for a new connection, or null when the server speaks plain HTTP. */
    SSLEngine newTlsEngine() {
        return tls == null ? null : tls.newServerEngine();
    }

    WsConnection.Settings webSocketSettings() {
        return webSocketSettings;
    }

    ServerOptions options() {
        return options;
    }

    Dispatcher dispatcher() {
        return dispatcher;
    }

    ServerObserver observer() {
        return observer;
    }

    /** The TLS every connection speaks (built once from {@code options.tls()} by {@link ServerTls}), or null for clear text. */
    Tls tls() {
        return tls;
    }

    /** The access log, or null when it is off. */
    AccessLog accessLog() {
        return accessLog;
    }

    Http1Parser.Limits parserLimits() {
        return parserLimits;
    }

    int readBufferSize() {
        return readBufferSize;
    }

    boolean isStopping() {
        return stopping;
    }

    void markStopping() {
        stopping = true;
    }
}
