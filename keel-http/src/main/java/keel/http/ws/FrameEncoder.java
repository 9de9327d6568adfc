package keel.http.ws;

import keel.core.buffer.WriteQueue;

import java.nio.charset.StandardCharsets;
import java.util.random.RandomGenerator;

/**
 * Encodes frames into a {@link WriteQueue}. A server's frames go unmasked and their payload is queued
 * without a copy when large; a client's are masked with a fresh random key per frame (RFC 6455 §5.3),
 * which needs a masked copy of the payload.
 */
final class FrameEncoder {
    /** RFC 6455 §5.5: control frame payloads are at most 125 bytes; a close reason gets 123 after the code. */
    static final int MAX_CONTROL_PAYLOAD = 125;

    private FrameEncoder() {
    }

    /** Bytes the frame of a {@code payloadLength}-byte payload takes on the wire. */
    static int frameLength(int payloadLength, boolean masked) {
        int header = payloadLength < 126 ? 2 : payloadLength < 65_536 ? 4 : 10;
        return header + (masked ? 4 : 0) + payloadLength;
    }

    /** Queues one final frame (a whole message or a control frame). */
    static void write(WriteQueue out, int opcode, byte[] payload, RandomGenerator maskKeys) {
        write(out, opcode, true, false, payload, maskKeys);
    }

    /**
     * Queues one frame; {@code fin} false for every fragment of a message but the last, {@code rsv1}
     * on the first frame of a compressed message (RFC 7692 §6). {@code maskKeys} is null on a server;
     * on a client it supplies the masking key. The payload array must not change until it is written.
     */
    static void write(WriteQueue out, int opcode, boolean fin, boolean rsv1, byte[] payload, RandomGenerator maskKeys) {
        int length = payload.length;
        out.put((byte) ((fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode));
        int maskBit = maskKeys != null ? 0x80 : 0;
        if (length < 126) {
            out.put((byte) (maskBit | length));
        } else if (length < 65_536) {
            out.put((byte) (maskBit | 126));
            out.put((byte) (length >>> 8));
            out.put((byte) length);
        } else {
            out.put((byte) (maskBit | 127));
            for (int shift = 56; shift >= 0; shift -= 8) out.put((byte) ((long) length >>> shift));
        }
        if (maskKeys == null) {
            out.put(payload);
            return;
        }
        int key = maskKeys.nextInt();
        byte[] mask = {(byte) (key >>> 24), (byte) (key >>> 16), (byte) (key >>> 8), (byte) key};
        out.put(mask);
        byte[] masked = new byte[length];
        for (int i = 0; i < length; i++) masked[i] = (byte) (payload[i] ^ mask[i & 3]);
        out.put(masked);
    }

    /** The payload of a Close frame: the code, then the reason cut to fit 123 bytes on a character boundary. */
    static byte[] closePayload(int code, String reason) {
        if (code == WsClose.NO_STATUS) return new byte[0];
        byte[] text = reason == null ? new byte[0] : reason.getBytes(StandardCharsets.UTF_8);
        int keep = Math.min(text.length, MAX_CONTROL_PAYLOAD - 2);
        while (keep > 0 && keep < text.length && (text[keep] & 0xC0) == 0x80) keep--; // never split a code point
        byte[] payload = new byte[2 + keep];
        payload[0] = (byte) (code >>> 8);
        payload[1] = (byte) code;
        System.arraycopy(text, 0, payload, 2, keep);
        return payload;
    }
}
