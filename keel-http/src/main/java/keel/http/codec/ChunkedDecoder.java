package keel.http.codec;

import java.nio.ByteBuffer;

/**
 * The chunked transfer coding (RFC 9112 §7.1) over a heap buffer. It consumes the framing (chunk-size
 * lines, the CRLF after each chunk's data, the trailer section, read and dropped) and leaves the data
 * in place for the caller, who takes it and reports how much with {@link #consumed}.
 *
 * <pre>
 *  SIZE ──(size &gt; 0)──► DATA ──(its last byte consumed)──► DATA_END ──(CRLF)──► SIZE
 *   │ size 0
 *   ▼
 *  TRAILERS ──(empty line)──► DONE
 * </pre>
 */
final class ChunkedDecoder {
    /** What {@link #next} returns once the last chunk and the trailer section have been consumed. */
    static final int END = -1;
    /** Longest chunk-size line accepted, extensions included. */
    static final int MAX_CHUNK_LINE = 1024;

    private enum State { SIZE, DATA, DATA_END, TRAILERS, DONE }

    private final int maxTrailerSize;
    private State state = State.SIZE;
    /** Data bytes of the current chunk not yet consumed, arrived or not. */
    private long chunkRemaining;
    /** Trailer bytes consumed so far (bounded like a head). */
    private int trailerBytes;

    /** @param maxTrailerSize bytes of trailer section accepted (431 past it) */
    ChunkedDecoder(int maxTrailerSize) {
        this.maxTrailerSize = maxTrailerSize;
    }

    /** Prepares for the next chunked body. */
    void reset() {
        state = State.SIZE;
        chunkRemaining = 0;
        trailerBytes = 0;
    }

    /**
     * Consumes framing bytes from {@code in} and returns how many data bytes of the current chunk are
     * ready at its position (the caller takes them and calls {@link #consumed}), 0 when more input is
     * needed, or {@link #END}.
     */
    int next(ByteBuffer in) {
        while (true) {
            if (state == State.DONE) return END;
            if (state == State.DATA) return (int) Math.min(in.remaining(), chunkRemaining);
            boolean progressed = switch (state) {
                case SIZE -> readSize(in);
                case DATA_END -> readDataEnd(in);
                default -> readTrailers(in);
            };
            if (!progressed) return 0;
        }
    }

    /** Data bytes of the current chunk still to come, arrived or not (0 outside chunk data). */
    long chunkRemaining() {
        return chunkRemaining;
    }

    /** The caller took {@code n} of the bytes {@link #next} reported ready. */
    void consumed(int n) {
        chunkRemaining -= n;
        if (chunkRemaining == 0) state = State.DATA_END;
    }

    private boolean readSize(ByteBuffer in) {
        byte[] a = in.array();
        int start = in.arrayOffset() + in.position();
        int limit = in.arrayOffset() + in.limit();
        int lineEnd = Tokens.indexOf(a, start, Math.min(limit, start + MAX_CHUNK_LINE), (byte) '\n');
        if (lineEnd < 0) {
            if (limit - start >= MAX_CHUNK_LINE) throw new BadMessage("chunk size line too long");
            return false;
        }
        long size = Tokens.chunkSize(a, start, crlfContentEnd(a, start, lineEnd));
        in.position(lineEnd + 1 - in.arrayOffset());
        chunkRemaining = size;
        state = size == 0 ? State.TRAILERS : State.DATA;
        return true;
    }

    private boolean readDataEnd(ByteBuffer in) {
        if (!in.hasRemaining()) return false;
        if (in.get(in.position()) != '\r') throw new BadMessage("chunk data longer than its declared size");
        if (in.remaining() < 2) return false;
        if (in.get(in.position() + 1) != '\n') throw new BadMessage("chunk data not followed by CRLF");
        in.position(in.position() + 2);
        state = State.SIZE;
        return true;
    }

    /** Trailer fields are read and dropped (RFC 9110 §6.5: a recipient may discard them). */
    private boolean readTrailers(ByteBuffer in) {
        byte[] a = in.array();
        int base = in.arrayOffset();
        while (true) {
            int start = base + in.position();
            int limit = base + in.limit();
            int lineEnd = Tokens.indexOf(a, start, limit, (byte) '\n');
            if (lineEnd < 0) {
                if (trailerBytes + (limit - start) > maxTrailerSize) throw new BadMessage(431, "trailer section too large");
                return false;
            }
            trailerBytes += lineEnd + 1 - start;
            if (trailerBytes > maxTrailerSize) throw new BadMessage(431, "trailer section too large");
            in.position(lineEnd + 1 - base);
            if (crlfContentEnd(a, start, lineEnd) == start) {
                state = State.DONE;
                return true;
            }
        }
    }

    /**
     * Like {@link MessageHead#contentEnd}, but the line must end with CRLF: RFC 9112 §7.1 allows no
     * bare LF in chunked framing, and a proxy that reads it differently would frame the body differently.
     */
    private static int crlfContentEnd(byte[] a, int start, int lf) {
        if (lf == start || a[lf - 1] != '\r') throw new BadMessage("chunked framing line not ended by CRLF");
        return MessageHead.contentEnd(a, start, lf);
    }
}
