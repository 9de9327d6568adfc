package keel.http.ws;

/**
 * Hears what WebSocket sessions do, for metrics (a server's comes from
 * {@code ServerObserver.webSockets()}). Methods run on the session's event loop: they must be cheap
 * and never block. Every method has an empty default.
 */
public interface WsObserver {
    WsObserver NONE = new WsObserver() {
    };

    /** A session opened (its listener's {@code onOpen} is due). */
    default void onSessionOpened() {
    }

    /**
     * A session that was reported opened has closed its connection; {@code code} is the one its
     * listener's {@code onClose} got: the peer's, Keel's own on a failure, or 1006 without a handshake.
     */
    default void onSessionClosed(int code) {
    }

    /** A whole text or binary message arrived; {@code payloadBytes} of it (UTF-8 bytes for text). */
    default void onMessageReceived(int payloadBytes) {
    }

    /** A text or binary message (or one fragment of it, {@code last} on its final one) went to the socket's write queue. */
    default void onMessageSent(int payloadBytes, boolean last) {
    }
}
