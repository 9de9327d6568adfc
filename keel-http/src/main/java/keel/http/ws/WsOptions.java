package keel.http.ws;

import java.time.Duration;
import java.util.Objects;

/**
 * The WebSocket knobs of a server ({@code websocket.*} keys) or a client.
 *
 * @param maxFrameSize    largest frame payload accepted; past it the session closes with 1009
 * @param maxMessageSize  largest message, fragments together; past it 1009
 * @param maxQueuedOutput bytes a session may queue for sending; past it a send fails with
 *                        {@link WsOverflowException} (the water marks come before it)
 * @param closeTimeout    how long a close handshake (and the flush before a failing close) may take
 *                        before the connection is closed anyway
 * @param idleTimeout     a session that receives nothing (no message, no pong) this long is closed with 1001
 * @param pingInterval    how often a ping is sent to keep the connection (and NAT mappings) alive; 0 turns it off
 * @param compression     permessage-deflate (RFC 7692): a server accepts a client's offer, a client offers it
 * @param contextTakeover with compression, each side's compressor keeps its window from message to
 *                        message (better ratios, and about 256 KiB of native memory per session that
 *                        compresses); false asks both sides to reset it after each message
 * @param compressionLevel the deflate level Keel compresses with, 1 (fastest) to 9 (smallest); zlib's
 *                         default 6 took about 3 times the CPU of 1 for 15 to 25 % fewer bytes of JSON
 */
public record WsOptions(int maxFrameSize, int maxMessageSize, int maxQueuedOutput, Duration closeTimeout,
                        Duration idleTimeout, Duration pingInterval, boolean compression, boolean contextTakeover,
                        int compressionLevel) {
    public WsOptions {
        if (maxFrameSize < FrameEncoder.MAX_CONTROL_PAYLOAD) throw new IllegalArgumentException("websocket.max-frame-size must be >= 125: " + maxFrameSize);
        if (maxMessageSize < 1) throw new IllegalArgumentException("websocket.max-message-size must be >= 1: " + maxMessageSize);
        if (maxQueuedOutput < 1) throw new IllegalArgumentException("websocket.max-queued-output must be >= 1: " + maxQueuedOutput);
        positive("websocket.close-timeout", closeTimeout);
        positive("websocket.idle-timeout", idleTimeout);
        Objects.requireNonNull(pingInterval, "websocket.ping-interval");
        if (pingInterval.isNegative()) throw new IllegalArgumentException("websocket.ping-interval must be >= 0: " + pingInterval);
        if (compressionLevel < 1 || compressionLevel > 9) {
            throw new IllegalArgumentException("websocket.compression-level must be in 1..9: " + compressionLevel);
        }
    }

    /**
     * 1 MiB frames, 4 MiB messages, 1 MiB queued output, 5 s close timeout, 2 min idle, a ping every
     * 30 s, permessage-deflate with context takeover at level 6.
     */
    public static WsOptions defaults() {
        return new WsOptions(1 << 20, 4 << 20, 1 << 20, Duration.ofSeconds(5), Duration.ofMinutes(2), Duration.ofSeconds(30),
                true, true, 6);
    }

    /** These options with permessage-deflate on or off (a client then offers it or not). */
    public WsOptions withCompression(boolean on) {
        return new WsOptions(maxFrameSize, maxMessageSize, maxQueuedOutput, closeTimeout, idleTimeout, pingInterval, on,
                contextTakeover, compressionLevel);
    }

    /** These options with context takeover on, or off (both compressors reset after each message). */
    public WsOptions withContextTakeover(boolean on) {
        return new WsOptions(maxFrameSize, maxMessageSize, maxQueuedOutput, closeTimeout, idleTimeout, pingInterval, compression,
                on, compressionLevel);
    }

    /** These options compressing at {@code level} (1..9). */
    public WsOptions withCompressionLevel(int level) {
        return new WsOptions(maxFrameSize, maxMessageSize, maxQueuedOutput, closeTimeout, idleTimeout, pingInterval, compression,
                contextTakeover, level);
    }

    private static void positive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) throw new IllegalArgumentException(name + " must be > 0: " + value);
    }
}
