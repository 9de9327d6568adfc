package keel.http.codec;

import keel.http.Headers;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/**
 * Finds the end of an HTTP/1.1 message head as its bytes arrive, and reads its lines and header
 * fields (RFC 9112 §2.2, §5). Scanning resumes where it stopped, so a head split across many reads
 * costs one scan; once found, the head is read in one pass. Request and response parsers share it.
 */
final class MessageHead {
    private static final VarHandle WORD = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long LINE_FEEDS = 0x0A0A_0A0A_0A0A_0A0AL;
    private static final long ONES = 0x0101_0101_0101_0101L;
    private static final long HIGH_BITS = 0x8080_8080_8080_8080L;
    /** The bytes a field value may hold (RFC 9110 §5.5: VCHAR, SP, HTAB, obs-text), by unsigned value. */
    private static final boolean[] FIELD_VALUE = new boolean[256];

    static {
        for (int b = 0; b < 256; b++) FIELD_VALUE[b] = b >= ' ' && b != 0x7f || b == '\t';
    }

    /** Bytes of the current head (from its first byte) already scanned for its end. */
    private int scanned;

    /** Bytes of a head not yet complete that were already scanned: 0 before its first byte (or a lone LF). */
    int scanned() {
        return scanned;
    }

    /**
     * Index just past the empty line that ends the head starting at {@code start}, or -1 when
     * {@code a[start..limit)} does not hold it yet (the next call resumes where this one stopped).
     * Looks for line feeds eight bytes at a time.
     */
    int find(byte[] a, int start, int limit) {
        int i = start + scanned;
        while (i < limit) {
            int lf = nextLineFeed(a, i, limit);
            if (lf < 0) return notYet(limit - start);
            if (lf + 1 >= limit) return notYet(lf - start);
            if (a[lf + 1] == '\n') return found(lf + 2);
            if (a[lf + 1] == '\r') {
                if (lf + 2 >= limit) return notYet(lf - start);
                if (a[lf + 2] == '\n') return found(lf + 3);
            }
            i = lf + 1;
        }
        return notYet(limit - start);
    }

    /** Index of the first LF in {@code a[from..to)}, or -1: a word of eight bytes at a time, then byte by byte. */
    static int nextLineFeed(byte[] a, int from, int to) {
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            // A byte of the word that is LF becomes zero; the high bit of each zero byte is then set
            // (Hacker's Delight 6-1; a set bit above the lowest zero byte may be a false one, so only
            // the lowest counts).
            long x = (long) WORD.get(a, i) ^ LINE_FEEDS;
            long zeros = (x - ONES) & ~x & HIGH_BITS;
            if (zeros != 0) return i + (Long.numberOfTrailingZeros(zeros) >>> 3);
        }
        for (; i < to; i++) {
            if (a[i] == '\n') return i;
        }
        return -1;
    }

    private int notYet(int scannedBytes) {
        scanned = scannedBytes;
        return -1;
    }

    private int found(int end) {
        scanned = 0;
        return end;
    }

    /** Index of the LF that ends the line starting at {@code start}; the head is known to contain one. */
    static int lineEnd(byte[] a, int start, int end) {
        int lf = nextLineFeed(a, start, end);
        if (lf < 0) throw new BadMessage("malformed message head");
        return lf;
    }

    /** End of a line's content: drops the CR of CRLF; a CR anywhere else is invalid. */
    static int contentEnd(byte[] a, int start, int lf) {
        int end = lf > start && a[lf - 1] == '\r' ? lf - 1 : lf;
        if (Tokens.indexOf(a, start, end, (byte) '\r') >= 0) throw new BadMessage("bare CR in message head");
        return end;
    }

    /**
     * Reads the field lines from {@code position} up to the empty line that ends the head (found before;
     * the head ends at {@code end}) into {@code fields} (cleared by the caller) and returns them; more
     * than {@code maxCount} is a 431. With a {@code last} head (a request parser's), a field line that
     * came again at its place gives what it read as then, and this head is kept there; null for none.
     */
    static Headers readFields(byte[] a, int position, int end, int maxCount, Headers.Builder fields, LastHead last) {
        while (true) {
            byte first = a[position];
            if (first == '\n' || first == '\r' && a[position + 1] == '\n') return last == null ? fields.build() : last.end(a, end, fields);
            if (fields.size() == maxCount) throw new BadMessage(431, "more than " + maxCount + " header fields");
            int next = last == null ? -1 : last.repeated(a, position, end);
            if (next >= 0) {
                fields.add(last.name(), last.value());
                position = next;
            } else {
                position = readField(a, position, fields, last);
            }
        }
    }

    /**
     * Reads the field line at {@code start} in one pass (the head holds its LF) and returns the index
     * past its LF, telling {@code last} (when not null) what it read; a line that does not read is
     * looked at again by {@link #refuseField}, which says why.
     */
    private static int readField(byte[] a, int start, Headers.Builder fields, LastHead last) {
        int colon = start;
        while (Tokens.isTchar(a[colon])) colon++;
        if (a[colon] != ':' || colon == start) throw refuseField(a, start);
        int valueStart = colon + 1;
        while (a[valueStart] == ' ' || a[valueStart] == '\t') valueStart++;
        int i = valueStart;
        while (FIELD_VALUE[a[i] & 0xFF]) i++;
        int lf = a[i] == '\r' && a[i + 1] == '\n' ? i + 1 : i;
        if (a[lf] != '\n') throw refuseField(a, start);
        int valueEnd = i;
        while (valueEnd > valueStart && (a[valueEnd - 1] == ' ' || a[valueEnd - 1] == '\t')) valueEnd--;
        String name = Tokens.fieldName(a, start, colon);
        String value = new String(a, valueStart, valueEnd - valueStart, ISO_8859_1);
        fields.add(name, value);
        if (last != null) last.fieldRead(name, value, lf + 1);
        return lf + 1;
    }

    /** Why the field line at {@code start} does not read, checked in the order RFC 9112 §5 gives. */
    private static BadMessage refuseField(byte[] a, int start) {
        int lf = start;
        while (a[lf] != '\n') lf++;
        int end = lf > start && a[lf - 1] == '\r' ? lf - 1 : lf;
        if (Tokens.indexOf(a, start, end, (byte) '\r') >= 0) return new BadMessage("bare CR in message head");
        if (a[start] == ' ' || a[start] == '\t') return new BadMessage("obsolete line folding in header field");
        int colon = Tokens.indexOf(a, start, end, (byte) ':');
        if (colon <= start) return new BadMessage("malformed header field");
        for (int i = start; i < colon; i++) {
            if (!Tokens.isTchar(a[i])) return new BadMessage("invalid character in header name");
        }
        return new BadMessage("invalid character in header value");
    }
}
