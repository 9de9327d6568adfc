package keel.http.server;

import keel.core.guard.BlockedLoop;
import keel.core.net.ChannelObserver;
import keel.http.Rejection;
import keel.http.server.exchange.ExchangeObserver;
import keel.http.ws.WsObserver;

/**
 * Hears what a running server does, for metrics. Methods run on the thread where the event happens
 * (an event loop, a worker, a virtual thread, the watchdog): they must be cheap and never block.
 * Every method has an empty default, so an observer implements only what it needs.
 *
 * <p>Its byte and TLS handshake methods come from {@link ChannelObserver}, whose package is exported to
 * keel.http only: another module overrides them here by name and never names {@code ChannelObserver}.
 * The exchanges of both transports tell their events through {@link ExchangeObserver} (not exported
 * either), whose reasons the defaults here hand on to {@link #onTimeout} and {@link #onDropped}.
 */
@SuppressWarnings("exports")
public interface ServerObserver extends ExchangeObserver {
    ServerObserver NONE = new ServerObserver() {
    };

    /** Which of the server's timeouts ended a wait on a client; see {@link #onTimeout}. */
    enum Timeout {
        /** A keep-alive connection with no request for {@code timeouts.idle}: closed, nothing to answer. */
        IDLE,
        /** A head not complete within {@code timeouts.head-read}: 408. */
        HEAD_READ,
        /** A body that sent nothing for {@code timeouts.idle}: 408. */
        BODY_STALLED,
        /** A body that fell behind {@code timeouts.body-min-rate}: 408. */
        BODY_TOO_SLOW,
        /** A client that stopped reading its response for {@code timeouts.write-stall}: closed, nothing more can reach it. */
        WRITE_STALLED;

        /** The label value: {@code idle}, {@code body_too_slow}, … */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Why a request's connection closed before the whole of its response could be sent; see {@link #onDropped}. */
    enum Drop {
        /** A streamed body's next part could not reach the connection's loop (its task queue was full): the body is cut short. */
        LOOP_QUEUE_FULL,
        /** The answer came back after the connection's loop had stopped (a server stopped past its grace). */
        LOOP_STOPPED,
        /** The response could not be written (a value the writer refused): the connection closes instead. */
        RESPONSE_FAILED,
        /** A streamed body's publisher failed after the head was sent: the body is cut short. */
        STREAM_FAILED,
        /** A streamed body's publisher produced no item for {@code timeouts.stream-stall}: the body is cut short. */
        STREAM_STALLED,
        /** A new connection could not reach an event loop (its task queue was full): closed before any request (nio). */
        HANDOFF_REFUSED;

        /** The label value: {@code loop_queue_full}, … */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * With a warm-up that waits for the JIT ({@code server.warmup-requests} of {@link Warmup#JIT_REQUESTS}
     * or more), once before the server starts: run the observer's own hot paths (on throwaway state:
     * nothing real may be recorded), so that they are compiled before the first real response;
     * {@code requests} is the size of the server's warm-up, as many times as they should run.
     */
    default void warmup(int requests) {
    }

    /** Once, just before the server opens its port: gauges may read {@code server} from now on. */
    default void onStart(HttpServer server) {
    }

    /**
     * A response left the handler (or the router, for 404/405).
     *
     * @param route the matched route's pattern ({@code /users/{id}}), or null when none matched
     * @param nanos from the request being parsed to the response being produced
     */
    @Override
    default void onResponse(String method, String route, int status, long nanos) {
    }

    /** A 503 went (or goes) to a client, for {@code reason}. */
    default void onRejected(Rejection reason) {
    }

    /** A timeout ended a wait on a client, for {@code reason}: answered 408, or closed where nothing can be answered. */
    default void onTimeout(Timeout reason) {
    }

    /** A connection closed before the whole of a response could be sent, for {@code reason}. */
    default void onDropped(Drop reason) {
    }

    /** The channel's write-stall bound closed a connection. */
    @Override
    default void onWriteStalled() {
        onTimeout(Timeout.WRITE_STALLED);
    }

    /** An exchange's wait on a client ran out: {@link #onTimeout}, for the reason of the same name. */
    @Override
    default void onExpired(Expiry reason) {
        onTimeout(Timeout.valueOf(reason.name()));
    }

    /** An exchange cut a response short: {@link #onDropped}, for the reason of the same name. */
    @Override
    default void onCut(Cut reason) {
        onDropped(Drop.valueOf(reason.name()));
    }

    /** What hears the server's WebSocket sessions; asked once, as the server starts. */
    default WsObserver webSockets() {
        return WsObserver.NONE;
    }

    /** The watchdog caught a loop stuck; {@code route} is the route it was running, or null. */
    default void onBlockedLoop(BlockedLoop event, String route) {
    }
}
