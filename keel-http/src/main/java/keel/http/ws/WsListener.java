package keel.http.ws;

/**
 * What a WebSocket endpoint does with the events of a session; every method is a no-op by default.
 *
 * <p>Thread contract: on a server, the callbacks of one session run one at a time and in order, under
 * the route's execution: on the session's event loop ({@code EVENT_LOOP}, must not block), on the
 * worker pool or on a virtual thread (where a callback may block; the session stops reading while
 * its backlog of undelivered messages is over the high water mark). On a client they run on the
 * client's event loop. {@link #onClose} is called once, last (unless the execution refused to run
 * the session's callbacks at all, which closes it with 1013). A callback that throws is reported to
 * {@link #onError} and closes the session with 1011.
 */
public interface WsListener {
    /** The handshake is done; sends may start. */
    default void onOpen(WsSession session) {
    }

    /** A whole text message (fragments reassembled, valid UTF-8). */
    default void onText(WsSession session, String text) {
    }

    /** A whole binary message (fragments reassembled). */
    default void onBinary(WsSession session, byte[] data) {
    }

    /** A ping; Keel has already queued the pong. */
    default void onPing(WsSession session, byte[] data) {
    }

    default void onPong(WsSession session, byte[] data) {
    }

    /**
     * The session ended. {@code code} is the peer's close code when a Close frame arrived
     * ({@link WsClose#NO_STATUS} if it carried none), the code Keel sent when it failed the
     * connection (1002, 1007, 1009, 1011, 1013), or {@link WsClose#ABNORMAL} when the connection
     * ended without a close handshake. When the peer started the close, Keel answers it after this
     * method returns, so messages sent from here still go out before the Close frame.
     */
    default void onClose(WsSession session, int code, String reason) {
    }

    /** A callback threw {@code failure}; the session is closed with 1011 next. */
    default void onError(WsSession session, Throwable failure) {
    }

    /**
     * The session's queued output crossed a water mark: {@code false} once it reaches the high water
     * mark (sends still work up to the hard bound, see {@link WsSession#send(String)}), {@code true}
     * once it is back under the low one.
     */
    default void onWritabilityChanged(WsSession session, boolean writable) {
    }
}
