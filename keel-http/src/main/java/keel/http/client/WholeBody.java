package keel.http.client;

import keel.http.codec.GzipDecoder;

import java.io.IOException;
import java.util.Arrays;
import java.util.zip.ZipException;

/**
 * A response body read whole ({@link HttpClient#sendAsync}), on the call's event loop. It grows as
 * bytes arrive, never past {@code maxSize}; a gzip body is decoded as it arrives, in pieces, and the
 * bound holds for the decoded size, so a body that inflates a thousandfold fails the call at the
 * bound instead of filling memory.
 */
final class WholeBody implements AutoCloseable {
    private static final int INITIAL_CAPACITY = 16 * 1024;
    private static final int PIECE = 16 * 1024;

    private final long maxSize;
    private final GzipDecoder gzip;
    private final byte[] piece;
    private byte[] bytes;
    private int size;

    /** {@code expectedLength}: the Content-Length, or -1; {@code gzip}: decode the body as it arrives. */
    WholeBody(long maxSize, long expectedLength, boolean gzip) {
        this.maxSize = maxSize;
        this.gzip = gzip ? new GzipDecoder() : null;
        this.piece = gzip ? new byte[PIECE] : null;
        long expected = expectedLength >= 0 && !gzip ? expectedLength : INITIAL_CAPACITY;
        this.bytes = new byte[(int) Math.min(expected, INITIAL_CAPACITY)];
    }

    /**
     * Adds bytes that arrived.
     *
     * @throws GzipDecoder.TooLargeException past {@code maxSize} (decoded)
     * @throws ZipException                  for a gzip body that is not valid gzip
     */
    void add(byte[] part) throws IOException {
        if (gzip == null) {
            append(part, part.length);
            return;
        }
        gzip.feed(part, 0, part.length);
        int n;
        while ((n = gzip.read(piece, 0, piece.length)) > 0) append(piece, n);
    }

    /** The whole body, once the response ended; a gzip body cut short fails. */
    byte[] finish() throws ZipException {
        if (gzip != null && !gzip.isComplete()) throw new ZipException("gzip body cut short");
        return size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
    }

    /** True when the body is decoded from gzip: the size bound is on the decoded bytes. */
    boolean isGzip() {
        return gzip != null;
    }

    /** Releases the decoder's native memory; idempotent. */
    @Override
    public void close() {
        if (gzip != null) gzip.close();
    }

    private void append(byte[] from, int length) throws GzipDecoder.TooLargeException {
        long needed = (long) size + length;
        if (needed > maxSize) throw new GzipDecoder.TooLargeException(maxSize);
        if (needed > bytes.length) bytes = Arrays.copyOf(bytes, (int) Math.min(Math.max(needed, bytes.length * 2L), maxSize));
        System.arraycopy(from, 0, bytes, size, length);
        size += length;
    }
}
