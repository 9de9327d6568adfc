package keel.core.net;

import java.nio.ByteBuffer;

/**
 * What the bytes on a {@link Channel} mean: the HTTP/1 server exchange, a WebSocket session, a client
 * exchange. The channel owns the socket plumbing (registration, buffers, interest, water marks, one
 * deadline, TLS, the lingering close); a protocol reads what arrived, writes into
 * {@link Channel#out()}, and tells the channel what it waits for. An upgrade is
 * {@link Channel#switchTo}.
 *
 * <p>Every method runs on the channel's event loop, never re-entered: the channel calls a protocol
 * only from its own events (readiness, its timer, a switch). Inside {@link #onInput}, a protocol that
 * resumes its input ({@link Channel#resumeInput}) reads on from the buffer it holds; one switched to
 * there ({@link Channel#switchTo}) is offered the rest when onInput returns.
 */
public interface Protocol {
    /** This protocol took the channel (it was created, or switched to): keep it, set a deadline. */
    default void onAttach(Channel channel) {
    }

    /** The channel can carry bytes: connected and, over TLS, handshaken (at once after a switch). */
    default void onOpen(Channel channel) {
    }

    /**
     * Input arrived. {@code in} is in read mode and holds every byte not consumed yet; consume what
     * can be used now and leave the rest (it is offered again with more, or after
     * {@link Channel#resumeInput}). Do not keep {@code in}.
     */
    void onInput(Channel channel, ByteBuffer in);

    /** The peer ended its output (a FIN, or TLS {@code close_notify}); input already delivered was consumed or stays buffered. */
    default void onEndOfInput(Channel channel) {
        channel.closeAfterFlush();
    }

    /**
     * Queued output moved: the channel wrote on a write-ready event, or output fell under the low water
     * mark. Sends may have completed, and {@link Channel#isWritable} may be true again.
     */
    default void onWritten(Channel channel) {
    }

    /** The deadline set with {@link Channel#deadlineAfter} passed (it is cleared now). */
    default void onDeadline(Channel channel) {
        channel.close();
    }

    /**
     * The channel closed; {@code cause} is null after an orderly close, otherwise the failure (a reset,
     * a refused connect, a failed TLS handshake, a stalled write). Release what the protocol holds.
     */
    default void onClosed(Channel channel, Throwable cause) {
    }
}
