package keel.http.codec;

import java.io.IOException;
import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import java.util.zip.ZipException;

/**
 * An incremental gzip (RFC 1952) decoder on the JDK's {@link Inflater}: {@link #feed} bytes as they
 * arrive, {@link #read} decoded bytes into a buffer of the caller's size until it returns 0, feed
 * again. It never produces more than the caller asks for, so a body that inflates a thousandfold (a
 * zip bomb) costs no more memory than the caller's bound. Concatenated members decode as one body;
 * each member's header CRC-16 (when present), CRC-32 and size are checked.
 *
 * <pre>
 *   HEADER ──10 bytes + optional fields──► DATA ──deflate end──► TRAILER ──CRC-32, ISIZE checked──► BOUNDARY
 *     ▲                                                                                              │
 *     └───────────────────────────────── more input: another member ◄────────────────────────────────┘
 * </pre>
 *
 * One decoder serves one body, used by one thread at a time; {@link #close} releases its native
 * memory.
 */
public final class GzipDecoder implements AutoCloseable {
    /** A header's optional name, comment and extra field together; past it the input is refused. */
    private static final int MAX_HEADER = 64 * 1024;
    private static final int FHCRC = 2;
    private static final int FEXTRA = 4;
    private static final int FNAME = 8;
    private static final int FCOMMENT = 16;
    private static final int RESERVED_FLAGS = 0xe0;

    private enum State { HEADER, DATA, TRAILER, BOUNDARY }

    /** The parts of a member header, in their order on the wire, each with the flag that says it is present (0: always). */
    private enum HeaderField {
        FIXED(0), EXTRA_LENGTH(FEXTRA), EXTRA(FEXTRA), NAME(FNAME), COMMENT(FCOMMENT), HEADER_CRC(FHCRC), DONE(0);

        final int flag;

        HeaderField(int flag) {
            this.flag = flag;
        }
    }

    /** The decoded size went past what the caller allows. */
    public static final class TooLargeException extends IOException {
        public TooLargeException(long limit) {
            super("decoded body larger than " + limit + " bytes");
        }
    }

    private final Inflater inflater = new Inflater(true);
    private final CRC32 crc = new CRC32();
    private final byte[] fields = new byte[10];
    private State state = State.HEADER;
    private HeaderField field = HeaderField.FIXED;
    private int fieldPosition;
    private int flags;
    private int extraRemaining;
    private int headerSize;
    private long memberSize;
    /** Invalid deflate data found by a read that still returned the bytes inflated before it. */
    private ZipException corrupt;
    private byte[] in = new byte[0];
    private int inPosition;
    private int inEnd;

    /**
     * Decodes a whole gzip body into at most {@code maxSize} bytes. The output starts at the size the
     * trailer announces and grows as it fills, never past {@code maxSize}: memory follows the decoded
     * size, whatever the body claims.
     *
     * @throws TooLargeException past {@code maxSize}
     * @throws ZipException      for input that is not gzip, is cut short, or fails its checks
     */
    public static byte[] decode(byte[] gzip, int maxSize) throws IOException {
        try (GzipDecoder decoder = new GzipDecoder()) {
            decoder.feed(gzip, 0, gzip.length);
            byte[] out = new byte[initialCapacity(gzip, maxSize)];
            int size = 0;
            while (true) {
                if (size == out.length) {
                    if (size == maxSize) {
                        if (decoder.read(new byte[1], 0, 1) > 0) throw new TooLargeException(maxSize);
                        break;
                    }
                    out = Arrays.copyOf(out, (int) Math.min(maxSize, Math.max(1024, out.length * 2L)));
                }
                int n = decoder.read(out, size, out.length - size);
                if (n == 0) break;
                size += n;
            }
            if (!decoder.isComplete()) throw new ZipException("gzip data cut short");
            return size == out.length ? out : Arrays.copyOf(out, size);
        }
    }

    /**
     * A first guess at the decoded size: the last member's ISIZE (its size modulo 2^32), which an
     * honest body states exactly, so it decodes without growing or trimming. The guess is only that:
     * never more than the limit, nor than deflate can expand these bytes to (1032 to 1), so a body
     * that lies costs no more than one that tells the truth.
     */
    private static int initialCapacity(byte[] gzip, int maxSize) {
        long stated = gzip.length >= 18 ? (gzip[gzip.length - 4] & 0xffL) | (gzip[gzip.length - 3] & 0xffL) << 8
                | (gzip[gzip.length - 2] & 0xffL) << 16 | (gzip[gzip.length - 1] & 0xffL) << 24 : 0;
        long guess = stated > 0 ? stated : Math.max(1024, gzip.length * 4L);
        return (int) Math.min(Math.min(maxSize, guess), gzip.length * 1032L);
    }

    /** True when everything fed has been used: {@link #feed} may be called. */
    public boolean needsInput() {
        return state == State.DATA ? inflater.getRemaining() == 0 : inPosition == inEnd;
    }

    /** Hands the decoder more input (the array is read, not copied: keep it unchanged); only when {@link #needsInput()}. */
    public void feed(byte[] bytes, int offset, int length) {
        if (!needsInput()) throw new IllegalStateException("the previous input is not used up");
        in = bytes;
        inPosition = offset;
        inEnd = offset + length;
        if (state == State.DATA) inflater.setInput(bytes, offset, length);
    }

    /**
     * Decodes into {@code out[offset, offset + length)}: the number of bytes decoded, or 0 when the
     * input fed so far is used up (or the body is complete).
     *
     * @throws ZipException for input that is not gzip or fails its checks
     */
    public int read(byte[] out, int offset, int length) throws ZipException {
        if (length == 0) return 0;
        while (true) {
            switch (state) {
                case BOUNDARY -> {
                    if (inPosition == inEnd) return 0;
                    state = State.HEADER;
                    field = HeaderField.FIXED;
                    fieldPosition = 0;
                    headerSize = 0;
                    crc.reset(); // over the header first, for its CRC-16
                }
                case HEADER -> {
                    if (!readHeader()) return 0;
                    state = State.DATA;
                    inflater.setInput(in, inPosition, inEnd - inPosition);
                }
                case DATA -> {
                    int n = inflate(out, offset, length);
                    if (n > 0) return n;
                    if (!inflater.finished()) return 0; // needs input
                    inPosition = inEnd - inflater.getRemaining();
                    state = State.TRAILER;
                    fieldPosition = 0;
                }
                case TRAILER -> {
                    if (!readTrailer()) return 0;
                    state = State.BOUNDARY;
                }
            }
        }
    }

    /** True at the end of a member with no input left over: the body fed so far is whole. */
    public boolean isComplete() {
        return state == State.BOUNDARY && inPosition == inEnd;
    }

    @Override
    public void close() {
        inflater.end();
    }

    private int inflate(byte[] out, int offset, int length) throws ZipException {
        if (corrupt != null) throw corrupt;
        long writtenBefore = inflater.getBytesWritten();
        int n;
        try {
            n = inflater.inflate(out, offset, length);
        } catch (DataFormatException e) {
            // The bytes inflated before the error are handed over first and the error at the next
            // read, so what a caller sees does not depend on the size of its reads (a limit passed
            // before the error is reported as such, whatever the buffer).
            corrupt = new ZipException("invalid deflate data: " + e.getMessage());
            n = (int) (inflater.getBytesWritten() - writtenBefore);
            if (n == 0) throw corrupt;
        }
        if (n == 0 && inflater.needsDictionary()) throw new ZipException("deflate data needs a preset dictionary");
        crc.update(out, offset, n);
        memberSize += n;
        return n;
    }

    /** Consumes header bytes; true once the header is complete. */
    private boolean readHeader() throws ZipException {
        while (inPosition < inEnd) {
            int b = in[inPosition++] & 0xff;
            if (++headerSize > MAX_HEADER) throw new ZipException("gzip header larger than " + MAX_HEADER + " bytes");
            if (field != HeaderField.HEADER_CRC) crc.update(b);
            switch (field) {
                case FIXED -> {
                    fields[fieldPosition++] = (byte) b;
                    if (fieldPosition == fields.length) checkFixedFields();
                }
                case EXTRA_LENGTH -> {
                    extraRemaining |= b << (8 * fieldPosition++);
                    if (fieldPosition == 2) nextField(extraRemaining == 0 ? HeaderField.NAME : HeaderField.EXTRA);
                }
                case EXTRA -> {
                    if (--extraRemaining == 0) nextField(HeaderField.NAME);
                }
                case NAME -> {
                    if (b == 0) nextField(HeaderField.COMMENT);
                }
                case COMMENT -> {
                    if (b == 0) nextField(HeaderField.HEADER_CRC);
                }
                case HEADER_CRC -> {
                    fields[fieldPosition++] = (byte) b;
                    if (fieldPosition == 2) checkHeaderCrc();
                }
            }
            if (field == HeaderField.DONE) {
                inflater.reset();
                crc.reset();
                memberSize = 0;
                return true;
            }
        }
        return false;
    }

    private void checkFixedFields() throws ZipException {
        if ((fields[0] & 0xff) != 0x1f || (fields[1] & 0xff) != 0x8b) throw new ZipException("not gzip data (bad magic number)");
        if (fields[2] != 8) throw new ZipException("unsupported gzip compression method " + fields[2]);
        flags = fields[3] & 0xff;
        if ((flags & RESERVED_FLAGS) != 0) throw new ZipException("reserved gzip header flags set");
        extraRemaining = 0;
        nextField(HeaderField.EXTRA_LENGTH);
    }

    /** RFC 1952 §2.3.1: the two low bytes of the CRC-32 of the header before them. */
    private void checkHeaderCrc() throws ZipException {
        int stated = (fields[0] & 0xff) | (fields[1] & 0xff) << 8;
        if (stated != (int) (crc.getValue() & 0xffff)) throw new ZipException("gzip header CRC-16 mismatch");
        nextField(HeaderField.DONE);
    }

    /** Moves to {@code candidate} or the first field after it that the flags say is present. */
    private void nextField(HeaderField candidate) {
        fieldPosition = 0;
        HeaderField next = candidate;
        while ((flags & next.flag) != next.flag) next = HeaderField.values()[next.ordinal() + 1];
        field = next;
    }

    /** Consumes trailer bytes; true once the 8 bytes are in and match what was decoded. */
    private boolean readTrailer() throws ZipException {
        while (inPosition < inEnd && fieldPosition < 8) fields[fieldPosition++] = in[inPosition++];
        if (fieldPosition < 8) return false;
        if (intLe(0) != crc.getValue()) throw new ZipException("gzip CRC-32 mismatch");
        if (intLe(4) != (memberSize & 0xffff_ffffL)) throw new ZipException("gzip size mismatch");
        return true;
    }

    private long intLe(int at) {
        return (fields[at] & 0xffL) | (fields[at + 1] & 0xffL) << 8 | (fields[at + 2] & 0xffL) << 16 | (fields[at + 3] & 0xffL) << 24;
    }
}
