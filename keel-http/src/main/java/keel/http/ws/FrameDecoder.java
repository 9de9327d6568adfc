package keel.http.ws;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.DataFormatException;

/**
 * A resumable RFC 6455 frame decoder that reassembles messages. It does no I/O and never blocks:
 * call {@link #decode} with whatever bytes arrived; it consumes what it used and says what it found.
 *
 * <pre>
 *   FIRST_BYTE ──► SECOND_BYTE ──(len 126/127)──► EXTENDED_LENGTH ──► MASKING_KEY ──► PAYLOAD ──┐
 *        ▲              │ (len ≤ 125)                    │ (unmasked)        ▲            │      │
 *        │              └────────────────────────────────┴───────────────────┘            │      │
 *        └──────── frame done: a control frame or a final fragment is returned ───────────┘      │
 *   any state ──(protocol error or a limit)──► FAILED (final)                                     ┘
 * </pre>
 *
 * Checked here: reserved bits and opcodes, masking (a server refuses unmasked frames, a client
 * masked ones), control frames that are fragmented or longer than 125 bytes, continuation without
 * a start and a new message inside a fragmented one (1002); frame and message size (1009, before
 * any payload is buffered); UTF-8 of text messages across fragments and of close reasons (1007).
 * Control frames may arrive between the fragments of a message.
 *
 * <p>With permessage-deflate agreed ({@code inflater} given), RSV1 on the first frame of a data
 * message marks it compressed (RFC 7692 §6.1; on a control or continuation frame it is a 1002). Such a
 * message is buffered compressed, under the same limits, and inflated whole at its last frame, to at
 * most {@code maxMessageSize} bytes (1009 past it, corrupt data 1002), then checked for UTF-8 (1007).
 */
final class FrameDecoder {
    static final int CONTINUATION = 0x0;
    static final int TEXT = 0x1;
    static final int BINARY = 0x2;
    static final int CLOSE = 0x8;
    static final int PING = 0x9;
    static final int PONG = 0xA;

    private enum State { FIRST_BYTE, SECOND_BYTE, EXTENDED_LENGTH, MASKING_KEY, PAYLOAD, FAILED }

    private final boolean expectMasked;
    private final int maxFrameSize;
    private final int maxMessageSize;
    /** Null unless permessage-deflate was agreed. */
    private final MessageInflater inflater;
    private State state = State.FIRST_BYTE;
    private Decoded.Failed failure;

    private boolean fin;
    private boolean compressedFrame;
    private int opcode;
    private boolean masked;
    private int lengthBytesLeft;
    private long length;
    private final byte[] mask = new byte[4];
    private int maskRead;
    /** Where this frame's payload goes: the message buffer (data) or its own array (control). */
    private byte[] target;
    private int targetStart;
    private int payloadRead;

    /** The fragmented (or single-frame) data message being assembled; 0 when none. */
    private int messageOpcode;
    private boolean messageCompressed;
    private byte[] message;
    private int messageLength;
    private final Utf8Validator utf8 = new Utf8Validator();

    /**
     * @param expectMasked   true on a server (client frames must be masked), false on a client
     * @param maxFrameSize   largest frame payload accepted (1009 past it)
     * @param maxMessageSize largest message, all fragments together (1009 past it)
     */
    FrameDecoder(boolean expectMasked, int maxFrameSize, int maxMessageSize) {
        this(expectMasked, maxFrameSize, maxMessageSize, null);
    }

    /** A decoder of compressed messages too, inflated by {@code inflater} (null: no extension agreed). */
    FrameDecoder(boolean expectMasked, int maxFrameSize, int maxMessageSize, MessageInflater inflater) {
        this.expectMasked = expectMasked;
        this.maxFrameSize = maxFrameSize;
        this.maxMessageSize = maxMessageSize;
        this.inflater = inflater;
    }

    /** Frees the decompressor; the connection has closed. */
    void release() {
        if (inflater != null) inflater.release();
    }

    /** Bytes reserved for the message being assembled (for tests: never past the message bound). */
    int messageCapacity() {
        return message == null ? 0 : message.length;
    }

    /** True between frames with no fragmented message open. */
    boolean isIdle() {
        return state == State.FIRST_BYTE && messageOpcode == 0;
    }

    /**
     * Consumes bytes from {@code in} (read mode) up to the end of the next message or control frame.
     * After a {@link Decoded.Failed} the decoder stays failed.
     */
    Decoded decode(ByteBuffer in) {
        while (true) {
            Decoded result = switch (state) {
                case FIRST_BYTE -> in.hasRemaining() ? firstByte(in.get()) : Decoded.NEED_MORE;
                case SECOND_BYTE -> in.hasRemaining() ? secondByte(in.get()) : Decoded.NEED_MORE;
                case EXTENDED_LENGTH -> extendedLength(in);
                case MASKING_KEY -> maskingKey(in);
                case PAYLOAD -> payload(in);
                case FAILED -> failure;
            };
            if (result != null) return result;
        }
    }

    private Decoded firstByte(byte b) {
        fin = (b & 0x80) != 0;
        opcode = b & 0x0F;
        compressedFrame = (b & 0x40) != 0;
        if ((b & 0x70) != 0 && inflater == null) return fail(WsClose.PROTOCOL_ERROR, "reserved bits set without a negotiated extension");
        if ((b & 0x30) != 0) return fail(WsClose.PROTOCOL_ERROR, "reserved bits RSV2 or RSV3 set");
        boolean control = (opcode & 0x08) != 0;
        if (control) {
            if (opcode > PONG) return fail(WsClose.PROTOCOL_ERROR, "reserved control opcode " + opcode);
            if (!fin) return fail(WsClose.PROTOCOL_ERROR, "fragmented control frame");
            if (compressedFrame) return fail(WsClose.PROTOCOL_ERROR, "RSV1 set on a control frame");
        } else if (compressedFrame && opcode == CONTINUATION) {
            return fail(WsClose.PROTOCOL_ERROR, "RSV1 set on a continuation frame");
        } else if (opcode > BINARY) {
            return fail(WsClose.PROTOCOL_ERROR, "reserved data opcode " + opcode);
        } else if (opcode == CONTINUATION && messageOpcode == 0) {
            return fail(WsClose.PROTOCOL_ERROR, "continuation frame without a message to continue");
        } else if (opcode != CONTINUATION && messageOpcode != 0) {
            return fail(WsClose.PROTOCOL_ERROR, "new message inside a fragmented message");
        }
        state = State.SECOND_BYTE;
        return null;
    }

    private Decoded secondByte(byte b) {
        masked = (b & 0x80) != 0;
        if (masked != expectMasked) {
            return fail(WsClose.PROTOCOL_ERROR, expectMasked ? "client frame not masked" : "server frame masked");
        }
        int length7 = b & 0x7F;
        if ((opcode & 0x08) != 0 && length7 > 125) return fail(WsClose.PROTOCOL_ERROR, "control frame longer than 125 bytes");
        length = length7;
        if (length7 < 126) return startPayloadOrMask();
        lengthBytesLeft = length7 == 126 ? 2 : 8;
        length = 0;
        state = State.EXTENDED_LENGTH;
        return null;
    }

    private Decoded extendedLength(ByteBuffer in) {
        while (lengthBytesLeft > 0) {
            if (!in.hasRemaining()) return Decoded.NEED_MORE;
            length = length << 8 | (in.get() & 0xFF);
            lengthBytesLeft--;
        }
        if (length < 0) return fail(WsClose.PROTOCOL_ERROR, "frame length with the most significant bit set");
        return startPayloadOrMask();
    }

    private Decoded startPayloadOrMask() {
        if (length > maxFrameSize) return fail(WsClose.TOO_BIG, "frame of " + length + " bytes exceeds " + maxFrameSize);
        boolean control = (opcode & 0x08) != 0;
        if (!control && messageLength + length > maxMessageSize) {
            return fail(WsClose.TOO_BIG, "message exceeds " + maxMessageSize + " bytes");
        }
        if (control) {
            target = new byte[(int) length];
            targetStart = 0;
        } else {
            if (opcode != CONTINUATION) {
                messageOpcode = opcode;
                messageCompressed = compressedFrame;
            }
            ensureMessageCapacity(messageLength + (int) length);
            target = message;
            targetStart = messageLength;
        }
        payloadRead = 0;
        maskRead = 0;
        state = masked ? State.MASKING_KEY : State.PAYLOAD;
        return null;
    }

    private Decoded maskingKey(ByteBuffer in) {
        while (maskRead < 4) {
            if (!in.hasRemaining()) return Decoded.NEED_MORE;
            mask[maskRead++] = in.get();
        }
        state = State.PAYLOAD;
        return null;
    }

    private Decoded payload(ByteBuffer in) {
        int wanted = (int) length - payloadRead;
        int n = Math.min(wanted, in.remaining());
        int at = targetStart + payloadRead;
        in.get(target, at, n);
        if (masked) {
            for (int i = 0; i < n; i++) target[at + i] ^= mask[(payloadRead + i) & 3];
        }
        payloadRead += n;
        if (payloadRead < length) return Decoded.NEED_MORE;
        state = State.FIRST_BYTE;
        return (opcode & 0x08) != 0 ? controlFrame() : dataFrame();
    }

    private Decoded controlFrame() {
        byte[] data = target;
        target = null;
        return switch (opcode) {
            case PING -> new Decoded.Ping(data);
            case PONG -> new Decoded.Pong(data);
            default -> closeFrame(data);
        };
    }

    private Decoded closeFrame(byte[] data) {
        if (data.length == 0) return new Decoded.Close(WsClose.NO_STATUS, "");
        if (data.length == 1) return fail(WsClose.PROTOCOL_ERROR, "close frame with a one-byte payload");
        int code = (data[0] & 0xFF) << 8 | (data[1] & 0xFF);
        if (!WsClose.isValidOnWire(code)) return fail(WsClose.PROTOCOL_ERROR, "invalid close code " + code);
        if (!Utf8Validator.isValid(data, 2, data.length - 2)) return fail(WsClose.INVALID_PAYLOAD, "close reason is not UTF-8");
        return new Decoded.Close(code, new String(data, 2, data.length - 2, StandardCharsets.UTF_8));
    }

    /** A data frame is complete: validate text as it comes, return the message on its final fragment. */
    private Decoded dataFrame() {
        int frameStart = messageLength;
        messageLength += (int) length;
        target = null;
        if (messageOpcode == TEXT && !messageCompressed && !utf8.feed(message, frameStart, messageLength - frameStart)) {
            return fail(WsClose.INVALID_PAYLOAD, "text message is not UTF-8");
        }
        if (!fin) return null;
        Decoded result = messageCompressed ? inflatedMessage() : wholeMessage(message, messageLength);
        if (result instanceof Decoded.Failed) return result;
        messageOpcode = 0;
        message = null;
        messageLength = 0;
        utf8.reset();
        return result;
    }

    private Decoded wholeMessage(byte[] data, int dataLength) {
        if (messageOpcode == BINARY) return new Decoded.Binary(data.length == dataLength ? data : Arrays.copyOf(data, dataLength));
        if (!messageCompressed && !utf8.isComplete()) return fail(WsClose.INVALID_PAYLOAD, "text message ends inside a UTF-8 sequence");
        return new Decoded.Text(new String(data, 0, dataLength, StandardCharsets.UTF_8));
    }

    /** RFC 7692 §7.2.2: the frames' payloads together, inflated within the message size bound, then UTF-8 checked. */
    private Decoded inflatedMessage() {
        byte[] inflated;
        try {
            inflated = inflater.inflate(message, messageLength);
        } catch (DataFormatException e) {
            return fail(WsClose.PROTOCOL_ERROR, "compressed message is not valid DEFLATE data");
        }
        if (inflated == null) return fail(WsClose.TOO_BIG, "message exceeds " + maxMessageSize + " bytes when inflated");
        if (messageOpcode == TEXT && !Utf8Validator.isValid(inflated, 0, inflated.length)) {
            return fail(WsClose.INVALID_PAYLOAD, "text message is not UTF-8");
        }
        return wholeMessage(inflated, inflated.length);
    }

    /** Grows the message buffer geometrically (many small fragments cost amortised linear copying). */
    private void ensureMessageCapacity(int needed) {
        if (message == null) {
            message = new byte[needed];
        } else if (message.length < needed) {
            int grown = (int) Math.min(maxMessageSize, Math.max(needed, message.length * 2L));
            message = Arrays.copyOf(message, grown);
        }
    }

    private Decoded fail(int code, String reason) {
        state = State.FAILED;
        failure = new Decoded.Failed(code, reason);
        target = null;
        message = null;
        return failure;
    }
}
