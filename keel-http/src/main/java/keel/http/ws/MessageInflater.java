package keel.http.ws;

import java.util.Arrays;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * The receiving half of permessage-deflate for one session (RFC 7692 §7.2.2): inflates a whole
 * compressed message (its frames' payloads together, then the {@code 00 00 ff ff} the sender
 * dropped), never past the size bound: output grows geometrically up to one byte over
 * {@code maxSize}, and reaching that byte stops the inflation. The window carries over from message
 * to message unless the peer resets its compressor. Loop thread only. The {@link Inflater} is made
 * at the first compressed message and ended by {@link #release}.
 */
final class MessageInflater {
    private final int maxSize;
    private final boolean resetAfterMessage;
    private Inflater inflater;
    private boolean released;
    private byte[] output;
    private int produced;

    /**
     * @param maxSize           the largest message, inflated
     * @param resetAfterMessage the peer resets its compressor after each message (no context takeover)
     */
    MessageInflater(int maxSize, boolean resetAfterMessage) {
        this.maxSize = maxSize;
        this.resetAfterMessage = resetAfterMessage;
    }

    /**
     * The message inflated from {@code data[0, length)}, or null when it would be larger than the
     * bound (the session then fails, so the inflater's state no longer matters).
     *
     * @throws DataFormatException when the data is not DEFLATE
     */
    byte[] inflate(byte[] data, int length) throws DataFormatException {
        if (released) throw new IllegalStateException("the session's decompressor is released");
        if (inflater == null) inflater = new Inflater(true);
        output = new byte[(int) Math.min(maxSize + 1L, Math.max(1024L, 4L * length))];
        produced = 0;
        try {
            boolean fits = feed(data, length) && feed(MessageDeflater.SYNC_TAIL, MessageDeflater.SYNC_TAIL.length) && produced <= maxSize;
            // A block with BFINAL set ends the stream (RFC 7692 §7.2.3.4): the next message starts a new one.
            if (resetAfterMessage || inflater.finished()) inflater.reset();
            return fits ? Arrays.copyOf(output, produced) : null;
        } finally {
            output = null;
        }
    }

    /** Bytes the last {@link #inflate} produced: at most {@code maxSize + 1}. */
    int lastProduced() {
        return produced;
    }

    /** Inflates {@code input} into {@link #output}; false as soon as the output passes the bound. */
    private boolean feed(byte[] input, int length) throws DataFormatException {
        inflater.setInput(input, 0, length);
        while (!inflater.finished()) {
            if (produced == output.length) {
                if (produced > maxSize) return false;
                output = Arrays.copyOf(output, (int) Math.min(maxSize + 1L, output.length * 2L));
            }
            int n = inflater.inflate(output, produced, output.length - produced);
            produced += n;
            if (n > 0) continue;
            if (inflater.needsInput()) return true;
            if (inflater.needsDictionary()) throw new DataFormatException("a preset dictionary is not allowed");
            throw new DataFormatException("the inflater made no progress");
        }
        return true;
    }

    /** Frees the decompressor's native memory; the session reads no more. */
    void release() {
        released = true;
        if (inflater != null) inflater.end();
        inflater = null;
    }
}
