package keel.http.server.exchange;

import keel.core.net.ChannelObserver;

/**
 * What the exchanges of both transports tell of themselves, in this package's words. The server's
 * observer ({@code ServerObserver}, which extends it) hands each reason on under the same name, for
 * metrics. Methods run on the thread where the event happens: cheap, never blocking.
 */
public interface ExchangeObserver extends ChannelObserver {
    /** Why a wait on a client ended it; {@code ServerObserver.Timeout} names each the same. */
    enum Expiry {
        IDLE, HEAD_READ, BODY_STALLED, BODY_TOO_SLOW
    }

    /** Why a response was cut short or never sent; {@code ServerObserver.Drop} names each the same. */
    enum Cut {
        LOOP_QUEUE_FULL, LOOP_STOPPED, RESPONSE_FAILED, STREAM_FAILED, STREAM_STALLED, HANDOFF_REFUSED
    }

    /** An answer left the handler or the router; {@code route} is null when none matched. */
    void onResponse(String method, String route, int status, long nanos);

    /** A wait on a client ran out: answered 408, or closed unanswered when the connection was idle. */
    void onExpired(Expiry reason);

    void onCut(Cut reason);
}
