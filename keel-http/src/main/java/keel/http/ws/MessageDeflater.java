package keel.http.ws;

import java.util.Arrays;
import java.util.zip.Deflater;

/**
 * The sending half of permessage-deflate for one session (RFC 7692 §7.2.1): decides which messages
 * are compressed and compresses their frames. Each frame's payload is deflated with a sync flush,
 * so it leaves whole; the last frame of a message loses the {@code 00 00 ff ff} that ends the flush.
 * The compressor keeps its window from message to message (context takeover) unless the agreement
 * says to reset it. Loop thread only. The {@link Deflater} (about 256 KiB of native memory) is made
 * at the first compressed message and ended by {@link #release}.
 */
final class MessageDeflater {
    /** Whole messages shorter than this go uncompressed: deflate's framing would eat most of the gain. */
    static final int MIN_SIZE = 64;
    /** What a sync flush ends with: dropped from a message's last frame, put back by the receiver. */
    static final byte[] SYNC_TAIL = {0, 0, (byte) 0xFF, (byte) 0xFF};

    private final int level;
    private final boolean resetAfterMessage;
    private Deflater deflater;
    /** Whether the message whose frames are being sent is compressed. */
    private boolean messageCompressed;
    private boolean released;

    /** @param level the deflate level, 1..9; {@code resetAfterMessage}: no context takeover */
    MessageDeflater(int level, boolean resetAfterMessage) {
        this.level = level;
        this.resetAfterMessage = resetAfterMessage;
    }

    /**
     * Whether the payload of this frame is to be compressed. Control frames never are (RFC 7692
     * §6.1); a message sent in fragments always is (its size is unknown at its first fragment); a
     * whole message from {@link #MIN_SIZE} bytes. Its continuation frames follow its first frame.
     */
    boolean compresses(int opcode, boolean fin, int payloadLength) {
        if ((opcode & 0x08) != 0) return false;
        if (opcode != FrameDecoder.CONTINUATION) messageCompressed = !fin || payloadLength >= MIN_SIZE;
        return messageCompressed;
    }

    /** The compressed payload of one frame of a compressed message; {@code last} for its final frame. */
    byte[] compress(byte[] payload, boolean last) {
        if (released) throw new IllegalStateException("the session's compressor is released");
        if (deflater == null) deflater = new Deflater(level, true);
        deflater.setInput(payload);
        int length = payload.length;
        byte[] out = new byte[length + (length >> 12) + (length >> 14) + 64]; // above zlib's deflateBound
        int produced = 0;
        while (true) {
            produced += deflater.deflate(out, produced, out.length - produced, Deflater.SYNC_FLUSH);
            if (produced < out.length) break; // a full buffer may hide more output: call again with room
            out = Arrays.copyOf(out, out.length * 2);
        }
        if (last) {
            produced = dropSyncTail(out, produced);
            if (resetAfterMessage) deflater.reset();
        }
        return Arrays.copyOf(out, produced);
    }

    /**
     * RFC 7692 §7.2.1: the message's data ends with an empty stored block, whose last four bytes
     * go. A final frame with no new input produced nothing (the previous flush already ended on a
     * byte boundary): its payload is the first byte of such a block, {@code 00}.
     */
    private static int dropSyncTail(byte[] out, int produced) {
        if (produced == 0) {
            out[0] = 0;
            return 1;
        }
        if (produced < SYNC_TAIL.length || !Arrays.equals(out, produced - 4, produced, SYNC_TAIL, 0, 4)) {
            throw new IllegalStateException("a sync flush did not end with 00 00 ff ff");
        }
        return produced - SYNC_TAIL.length;
    }

    /** Frees the compressor's native memory; the session sends no more. */
    void release() {
        released = true;
        if (deflater != null) deflater.end();
        deflater = null;
    }
}
