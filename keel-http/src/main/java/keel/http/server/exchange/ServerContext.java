package keel.http.server.exchange;

import keel.core.log.Log;
import keel.core.tls.Tls;
import keel.http.Response;
import keel.http.accesslog.AccessLog;
import keel.http.codec.Http1Parser;
import keel.http.codec.Http1Writer;
import keel.http.execution.Dispatcher;
import keel.http.Rejection;
import keel.http.router.Route;
import keel.http.router.RouteMatch;
import keel.http.router.RouteTable;
import keel.http.ws.WsConnection;
import keel.http.ws.WsHandshake;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What both transports share for one running server: its settings, dispatcher, observer, TLS and
 * access log, what every connection derives from them, and whether the server is stopping.
 *
 * @param observing      false when nobody hears the answers ({@link ExchangeObserver#onResponse}): the exchanges do not time them
 * @param tls            the TLS every connection speaks (built once from {@code server.tls.*}), or null for clear text
 * @param accessLog      the access log, or null when it is off
 * @param readBufferSize larger than the head limit, so a buffer full of head bytes always means 431, never a stall
 */
public record ServerContext(Settings settings, Dispatcher dispatcher, ExchangeObserver observer, boolean observing, Tls tls,
                            AccessLog accessLog, Http1Parser.Limits parserLimits, int readBufferSize, AtomicBoolean stopping) {
    private static final Log LOG = Log.of(ServerContext.class);

    /**
     * The server's options as the exchanges read them (the server makes them from its {@code ServerOptions}).
     *
     * @param pipelineRun the requests pipelined behind one handled off the loop that may join its run (nio)
     * @param webSocket   the settings of the WebSocket sessions (nio)
     */
    public record Settings(InetSocketAddress address, int backlog, int maxConnections, int maxHeadSize, int maxHeaderCount,
                           long maxBodySize, Timeouts timeouts, int highWaterMark, int lowWaterMark, int pipelineRun,
                           boolean nativeIo, WsConnection.Settings webSocket) {
    }

    /** The server's {@code timeouts.*} as a connection's waits ({@link Wait}) and a body's minimum rate ({@link BodyRate}) read them. */
    public record Timeouts(Duration headRead, Duration idle, Duration writeStall, Duration streamStall, int bodyMinRate,
                           Duration bodyRateWindow, Duration lingerDrain) {
    }

    public static ServerContext of(Settings settings, Dispatcher dispatcher, ExchangeObserver observer, boolean observing, Tls tls,
                                   AccessLog accessLog) {
        Http1Writer.prepare();
        if (dispatcher.routes().routes().stream().anyMatch(route -> route.endpoint() instanceof Route.WebSocket)) WsHandshake.prepare();
        return new ServerContext(settings, dispatcher, observer, observing, tls, accessLog,
                new Http1Parser.Limits(settings.maxHeadSize(), settings.maxHeaderCount(), settings.maxBodySize(),
                        bodyLimit(dispatcher.routes(), settings.maxBodySize())),
                Math.max(16 * 1024, Integer.highestOneBit(settings.maxHeadSize()) * 2), new AtomicBoolean());
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
     * Tells the observer of an answer, timed by the exchange that made it, on its own thread; a failing
     * observer is logged, never costs the response.
     */
    public void answered(String method, String pattern, int status, long nanos) {
        try {
            observer.onResponse(method, pattern, status, nanos);
        } catch (RuntimeException e) {
            LOG.warn("observer_failed", e, "event", "response");
        }
    }

    /**
     * A connection's wait for a request's bytes ({@link Wait#IDLE}, {@link Wait#HEAD} or {@link Wait#BODY})
     * ran out at {@code now} ({@code bodyRate}: its body's): tells the observer why, and returns the 408
     * that answers it, or null for an idle connection, which closes lingering without an answer.
     */
    public Response expired(Wait wait, BodyRate bodyRate, long now) {
        if (wait == Wait.BODY && bodyRate.isTooSlow(now)) {
            observer.onExpired(ExchangeObserver.Expiry.BODY_TOO_SLOW);
            return bodyRate.tooSlow();
        }
        observer.onExpired(switch (wait) {
            case IDLE -> ExchangeObserver.Expiry.IDLE;
            case HEAD -> ExchangeObserver.Expiry.HEAD_READ;
            default -> ExchangeObserver.Expiry.BODY_STALLED;
        });
        return wait == Wait.IDLE ? null : wait.onExpiry(settings.timeouts());
    }

    /** The 503 of a connection past {@code server.max-connections}, counted. */
    public Response overConnectionLimit() {
        return dispatcher.refusal(Rejection.CONNECTION_LIMIT, "connection limit reached (" + settings.maxConnections() + ")");
    }

    public boolean isStopping() {
        return stopping.get();
    }

    public void markStopping() {
        stopping.set(true);
    }
}
