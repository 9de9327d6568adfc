package keel.http.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * gzip (RFC 1952) on the JDK's {@link Deflater}: a whole body at once ({@link #gzipIfSmaller}), or a
 * body that arrives in items ({@link #encode} each, then {@link #finish}). Each item is flushed with
 * {@link Deflater#SYNC_FLUSH}, so what {@code encode} returns decodes to the whole item: a streamed
 * item is never held back waiting for the next one.
 *
 * <p>One encoder serves one body, used by one thread at a time. It holds native memory (about 256 KiB
 * at the default memory level) until {@link #finish} or {@link #close}.
 */
public final class GzipEncoder implements AutoCloseable {
    /** Magic, CM = deflate, no flags, no mtime, no extra flags, OS unknown. */
    private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};
    private static final int HEADER_SIZE = HEADER.length;
    private static final int TRAILER_SIZE = 8;

    private final Deflater deflater;
    private final CRC32 crc = new CRC32();
    private boolean started;
    private boolean finished;
    private byte[] out = new byte[256];
    private int size;

    /** {@code level}: 1 (fastest) to 9 (smallest). */
    public GzipEncoder(int level) {
        this.deflater = new Deflater(checkLevel(level), true);
    }

    public static int checkLevel(int level) {
        if (level < 1 || level > 9) throw new IllegalArgumentException("gzip level must be in 1..9: " + level);
        return level;
    }

    /**
     * The gzip member of {@code body} when it is smaller than {@code body}, else null (the body does
     * not compress, and goes as it is). Never needs more than {@code body.length} bytes of output.
     */
    public static byte[] gzipIfSmaller(byte[] body, int level) {
        int capacity = body.length - 1;
        if (capacity < HEADER_SIZE + TRAILER_SIZE + 2) return null;
        Deflater deflater = new Deflater(checkLevel(level), true);
        try {
            byte[] gzip = new byte[capacity];
            System.arraycopy(HEADER, 0, gzip, 0, HEADER_SIZE);
            int position = HEADER_SIZE;
            int limit = capacity - TRAILER_SIZE;
            deflater.setInput(body);
            deflater.finish();
            while (!deflater.finished()) {
                if (position == limit) return null;
                int n = deflater.deflate(gzip, position, limit - position);
                if (n == 0 && !deflater.finished()) throw new IllegalStateException("deflater made no progress");
                position += n;
            }
            CRC32 crc = new CRC32();
            crc.update(body);
            putTrailer(gzip, position, crc.getValue(), body.length);
            return Arrays.copyOf(gzip, position + TRAILER_SIZE);
        } finally {
            deflater.end();
        }
    }

    /**
     * {@code item} compressed and flushed: with what came before, the bytes decode to every item so far.
     * The first call's bytes start with the gzip header. An empty item gives an empty array.
     */
    public byte[] encode(byte[] item) {
        if (finished) throw new IllegalStateException("the gzip stream has ended");
        if (item.length == 0) return item;
        size = 0;
        writeHeaderOnce();
        crc.update(item);
        deflater.setInput(item);
        deflate(Deflater.SYNC_FLUSH);
        return Arrays.copyOf(out, size);
    }

    /** The end of the member: the last deflate block and the trailer (after the header if nothing was encoded). Ends the encoder. */
    public byte[] finish() {
        if (finished) throw new IllegalStateException("the gzip stream has ended");
        try {
            size = 0;
            writeHeaderOnce();
            deflater.finish();
            deflate(Deflater.NO_FLUSH);
            ensureRoom(TRAILER_SIZE);
            putTrailer(out, size, crc.getValue(), deflater.getBytesRead());
            size += TRAILER_SIZE;
            return Arrays.copyOf(out, size);
        } finally {
            close();
        }
    }

    /** Releases the native memory; the encoder cannot be used afterwards. Idempotent. */
    @Override
    public void close() {
        finished = true;
        deflater.end();
    }

    private void writeHeaderOnce() {
        if (started) return;
        started = true;
        ensureRoom(HEADER_SIZE);
        System.arraycopy(HEADER, 0, out, size, HEADER_SIZE);
        size += HEADER_SIZE;
    }

    /**
     * Deflates the input set: with {@code SYNC_FLUSH} until the flush is complete (a call that fills
     * the buffer may hide more output), after {@code finish()} until the deflater has finished.
     */
    private void deflate(int flush) {
        do {
            ensureRoom(64);
            int room = out.length - size;
            int n = deflater.deflate(out, size, room, flush);
            size += n;
            if (flush == Deflater.SYNC_FLUSH && n < room) return;
        } while (!deflater.finished());
    }

    private void ensureRoom(int room) {
        if (out.length - size < room) out = Arrays.copyOf(out, Math.max(out.length * 2, size + room));
    }

    /** The CRC-32, then ISIZE (the input size modulo 2^32), little-endian. */
    private static void putTrailer(byte[] to, int at, long crc, long inputSize) {
        ByteBuffer.wrap(to, at, TRAILER_SIZE).order(ByteOrder.LITTLE_ENDIAN).putInt((int) crc).putInt((int) inputSize);
    }
}
