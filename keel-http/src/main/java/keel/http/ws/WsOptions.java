package keel.http.ws;

import keel.http.config.Knob;
import keel.http.config.Knob.As;
import keel.http.config.KnobTable;

import static keel.http.config.ConfigValues.notNegative;
import static keel.http.config.ConfigValues.positive;

import java.time.Duration;

/**
 * The WebSocket knobs of a server ({@code websocket.*} keys) or a client. With compression and context
 * takeover, each compressor keeps its window (about 256 KiB of native memory per session that
 * compresses); zlib's default level 6 took about 3 times the CPU of level 1 for 15 to 25 % fewer bytes
 * of JSON.
 */
public record WsOptions(
        @Knob(key = "websocket.max-frame-size", flag = "--ws-max-frame-size", value = "1MiB", as = As.SIZE, min = 125, max = Knob.MAX_SIZE,
                doc = "the largest WebSocket frame payload accepted (close 1009)")
        int maxFrameSize,
        @Knob(key = "websocket.max-message-size", flag = "--ws-max-message-size", value = "4MiB", as = As.SIZE, min = 1, max = Knob.MAX_SIZE,
                doc = "the largest WebSocket message, fragments together (close 1009)")
        int maxMessageSize,
        @Knob(key = "websocket.max-queued-output", flag = "--ws-max-queued-output", value = "1MiB", as = As.SIZE, min = 1, max = Knob.MAX_SIZE,
                doc = "the bytes a session may queue for sending; past it a send fails with `WsOverflowException` (the water marks come before it)")
        int maxQueuedOutput,
        @Knob(key = "websocket.close-timeout", flag = "--ws-close-timeout", value = "5s",
                doc = "how long a close handshake (and the flush before a failing close) may take before TCP closes (lingering) anyway")
        Duration closeTimeout,
        @Knob(key = "websocket.idle-timeout", flag = "--ws-idle-timeout", value = "2m",
                doc = "a session that receives nothing (no message, no pong) this long is closed with 1001")
        Duration idleTimeout,
        @Knob(key = "websocket.ping-interval", flag = "--ws-ping-interval", value = "30s",
                doc = "how often a keep-alive ping goes to each session, for the connection and NAT mappings (`0s`: never)")
        Duration pingInterval,
        @Knob(key = "websocket.compression", flag = "--ws-compression", value = "true",
                doc = "permessage-deflate (RFC 7692): a server accepts a client's offer, a client offers it")
        boolean compression,
        @Knob(key = "websocket.context-takeover", flag = "--ws-context-takeover", value = "true",
                doc = "with compression, each side's compressor keeps its 32 KiB window from message to message; `false` tells both sides to reset it after each message")
        boolean contextTakeover,
        @Knob(key = "websocket.compression-level", flag = "--ws-compression-level", value = "6", min = 1, max = 9,
                doc = "the deflate level Keel compresses with: `1` (fastest) to `9` (smallest); see `bench/ws-compress.sh`")
        int compressionLevel) {
    private static final WsOptions DEFAULTS = KnobTable.of(WsOptions.class, WsOptions::of).defaultOptions();

    /** These options from a knob table's values (a server's table holds them too). */
    public static WsOptions of(KnobTable.Values v) {
        return new WsOptions(v.get("websocket.max-frame-size"), v.get("websocket.max-message-size"), v.get("websocket.max-queued-output"),
                v.get("websocket.close-timeout"), v.get("websocket.idle-timeout"), v.get("websocket.ping-interval"),
                v.get("websocket.compression"), v.get("websocket.context-takeover"), v.get("websocket.compression-level"));
    }

    public WsOptions {
        if (maxFrameSize < FrameEncoder.MAX_CONTROL_PAYLOAD) throw new IllegalArgumentException("websocket.max-frame-size must be >= 125: " + maxFrameSize);
        if (maxMessageSize < 1) throw new IllegalArgumentException("websocket.max-message-size must be >= 1: " + maxMessageSize);
        if (maxQueuedOutput < 1) throw new IllegalArgumentException("websocket.max-queued-output must be >= 1: " + maxQueuedOutput);
        positive("websocket.close-timeout", closeTimeout);
        positive("websocket.idle-timeout", idleTimeout);
        notNegative("websocket.ping-interval", pingInterval);
        if (compressionLevel < 1 || compressionLevel > 9) {
            throw new IllegalArgumentException("websocket.compression-level must be in 1..9: " + compressionLevel);
        }
    }

    /** The declared defaults: 1 MiB frames, 4 MiB messages, a ping every 30 s, permessage-deflate at level 6, …. */
    public static WsOptions defaults() {
        return DEFAULTS;
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
}
