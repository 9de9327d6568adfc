package keel.http.ws;

import keel.http.Request;

import java.util.concurrent.CompletionStage;

/**
 * One open WebSocket connection, as its listener and other threads see it. Every method may be
 * called from any thread: sends and closes are queued in call order and written by the session's
 * event loop.
 *
 * <p>Flow control: {@link #queuedBytes()} counts the bytes accepted by {@code send} and not yet
 * written to the socket (as frames before any compression). From the high water mark ({@code write.high-water-mark}) the session is not
 * {@link #isWritable() writable} (and stops reading); it is again under the low water mark. Once
 * {@code websocket.max-queued-output} bytes are queued, a send is refused: its stage fails with
 * {@link WsOverflowException} and nothing of it is sent; the session stays open. A message that
 * starts below the bound is accepted whole.
 *
 * <p>The stages returned here complete on the session's event loop: a dependent action given to
 * {@code thenRun} (not {@code thenRunAsync}) runs on that loop and must not block.
 */
public interface WsSession {
    /** Unique per server (or client) for its lifetime. */
    long id();

    /** The handshake request: path and query, path parameters, headers. */
    Request request();

    /** The subprotocol agreed in the handshake, or null. */
    String subprotocol();

    /**
     * The extensions agreed in the handshake, as a {@code Sec-WebSocket-Extensions} value
     * ({@code "permessage-deflate"}, maybe with parameters), or "" for none. With permessage-deflate,
     * messages of 64 bytes or more (and every message sent in fragments) go compressed.
     */
    String extensions();

    /**
     * Sends a text message. The stage completes when its last byte is written to the socket, or
     * fails with {@link WsOverflowException} (over the bound) or {@link WsClosedException}.
     */
    CompletionStage<Void> send(String text);

    /** Sends a binary message; the array is sent without a copy and must not change until the stage completes. */
    CompletionStage<Void> send(byte[] data);

    /**
     * Sends one fragment of a text message: the first call starts the message, the one with
     * {@code last} ends it. While it is open, other text or binary messages are refused (their stage
     * fails with {@link IllegalStateException}); pings and the close may go between fragments. Split
     * text between code points. Send the fragments of one message from one thread at a time.
     */
    CompletionStage<Void> send(String fragment, boolean last);

    /** Sends one fragment of a binary message, as {@link #send(String, boolean)} does for text. */
    CompletionStage<Void> send(byte[] fragment, boolean last);

    /** Sends a ping (at most 125 bytes); the peer's pong arrives at {@link WsListener#onPong}. */
    CompletionStage<Void> ping(byte[] data);

    /**
     * Starts the close handshake: a Close frame follows every message sent before this call; later
     * sends fail. The stage completes when the handshake ends (the peer's Close arrived, or Keel's
     * answer to the peer's Close was written) and fails with {@link WsClosedException} when the
     * connection ended otherwise (the {@code websocket.close-timeout} passed, the connection broke).
     * Keel then closes TCP lingering. Calling it again returns the same outcome.
     */
    CompletionStage<Void> close(int code, String reason);

    /** {@code close(1000, "")}. */
    default CompletionStage<Void> close() {
        return close(WsClose.NORMAL, "");
    }

    /** True until a close started (by either side) or the connection ended. */
    boolean isOpen();

    /** True while the queued output is under the water marks (with hysteresis). */
    boolean isWritable();

    /** Bytes accepted by sends and not yet written to the socket. */
    long queuedBytes();
}
