package keel.http.ws;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/** Builds raw frames for tests, including ones a correct encoder would never produce. */
final class Frames {
    private static final byte[] MASK = {0x37, (byte) 0xFA, 0x21, 0x3D};
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    static Frames of() {
        return new Frames();
    }

    /** A masked (client) frame. */
    Frames masked(boolean fin, int opcode, byte[] payload) {
        return raw((fin ? 0x80 : 0) | opcode, true, payload);
    }

    Frames masked(boolean fin, int opcode, String text) {
        return masked(fin, opcode, text.getBytes(StandardCharsets.UTF_8));
    }

    /** An unmasked (server) frame. */
    Frames unmasked(boolean fin, int opcode, byte[] payload) {
        return raw((fin ? 0x80 : 0) | opcode, false, payload);
    }

    /** A frame with the given first byte (FIN, RSV bits, opcode). */
    Frames raw(int firstByte, boolean mask, byte[] payload) {
        bytes.write(firstByte);
        int maskBit = mask ? 0x80 : 0;
        int length = payload.length;
        if (length < 126) {
            bytes.write(maskBit | length);
        } else if (length < 65_536) {
            bytes.write(maskBit | 126);
            bytes.write(length >>> 8);
            bytes.write(length);
        } else {
            bytes.write(maskBit | 127);
            for (int shift = 56; shift >= 0; shift -= 8) bytes.write((int) ((long) length >>> shift));
        }
        if (mask) bytes.writeBytes(MASK);
        for (int i = 0; i < length; i++) bytes.write(mask ? payload[i] ^ MASK[i & 3] : payload[i]);
        return this;
    }

    Frames bytes(int... values) {
        for (int value : values) bytes.write(value);
        return this;
    }

    byte[] build() {
        return bytes.toByteArray();
    }

    /** {@code data} compressed by the JDK's own deflater as one permessage-deflate message (RFC 7692 §7.2.1). */
    static byte[] deflate(byte[] data) {
        Deflater deflater = new Deflater(Deflater.BEST_SPEED, true);
        deflater.setInput(data);
        byte[] out = new byte[data.length + 1024];
        int n = deflater.deflate(out, 0, out.length, Deflater.SYNC_FLUSH);
        deflater.end();
        return Arrays.copyOf(out, n - 4);
    }

    /** A permessage-deflate payload inflated on its own (no context taken over), the tail put back. */
    static byte[] inflate(byte[] payload) {
        Inflater inflater = new Inflater(true);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] chunk = new byte[8192];
        try {
            for (byte[] input : new byte[][]{payload, {0, 0, (byte) 0xFF, (byte) 0xFF}}) {
                inflater.setInput(input);
                int n;
                while ((n = inflater.inflate(chunk)) > 0) out.write(chunk, 0, n);
            }
        } catch (DataFormatException e) {
            throw new AssertionError("not DEFLATE data", e);
        } finally {
            inflater.end();
        }
        return out.toByteArray();
    }

    static byte[] close(int code, byte[] reason) {
        byte[] payload = new byte[2 + reason.length];
        payload[0] = (byte) (code >>> 8);
        payload[1] = (byte) code;
        System.arraycopy(reason, 0, payload, 2, reason.length);
        return payload;
    }
}
