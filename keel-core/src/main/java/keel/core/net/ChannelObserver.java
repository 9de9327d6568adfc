package keel.core.net;

/**
 * Hears what channels do, for metrics. Called on the channel's loop: cheap and never blocking. Every
 * method has an empty default.
 */
public interface ChannelObserver {
    ChannelObserver NONE = new ChannelObserver() {
    };

    /** Bytes read from a socket (encrypted bytes, over TLS). */
    default void onBytesRead(long bytes) {
    }

    /** Bytes written to a socket (encrypted bytes, over TLS). */
    default void onBytesWritten(long bytes) {
    }

    /**
     * Queued output made no progress for {@link Channel.Settings#writeStallTimeout} (a peer that stopped
     * reading) and the channel was closed.
     */
    default void onWriteStalled() {
    }

    /**
     * A TLS handshake failed or stalled and its connection was closed; {@code reason} is one of
     * {@link keel.core.tls.HandshakeFailures#REASONS}.
     */
    default void onTlsHandshakeFailed(String reason) {
    }
}
