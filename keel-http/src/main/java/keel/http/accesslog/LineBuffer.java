package keel.http.accesslog;

import keel.core.log.Json;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Access lines encoded straight into bytes, in memory, until they are {@link #take taken} as one block.
 * A buffer with spares (an event loop's) hands a block at least half full over whole and goes on in a
 * spare array, one the log's writer gave back or a new one: a busy loop's lines are then neither
 * copied nor allocated a second time.
 * A line is given its room first ({@link #room}), so the puts never check for space. Values are ASCII
 * (the parser and {@link RequestIds} see to it); a character outside it becomes {@code ?} in text and
 * an escape in JSON. Confined to one thread.
 */
final class LineBuffer {
    private static final byte[] NULL = "null".getBytes(StandardCharsets.US_ASCII);
    private final StringBuilder escaped = new StringBuilder(64);
    /** Arrays the writer gave back, to go on in after a block is handed over whole; null: blocks are copied. */
    private final EntryRing<byte[]> spares;
    private byte[] bytes;
    private int length;
    /** Whole lines held. */
    private int lines;

    /** {@code spares}: where the writer gives handed-over arrays back (one thread takes from it, this one); null to copy every block. */
    LineBuffer(int capacity, EntryRing<byte[]> spares) {
        this.bytes = new byte[capacity];
        this.spares = spares;
    }

    /** True when {@code room} more bytes fit without growing. */
    boolean fits(int room) {
        return bytes.length - length >= room;
    }

    /** Makes room for {@code room} more bytes, growing when they do not fit. */
    LineBuffer room(int room) {
        if (!fits(room)) bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + room));
        return this;
    }

    /** Ends a line with its line break. */
    void endLine() {
        bytes[length++] = '\n';
        lines++;
    }

    /**
     * The whole lines held, as a block of their own, and forgets them; null when there are none. A block
     * at least half full is the buffer's own array, to be given back to the spares once written; a
     * smaller one is a copy (a queue of blocks holding a line each must not hold an array each).
     */
    AccessLog.Lines take() {
        if (lines == 0) return null;
        AccessLog.Lines taken;
        if (spares != null && length >= bytes.length / 2) {
            taken = new AccessLog.Lines(bytes, length, lines, spares);
            byte[] spare = spares.poll();
            bytes = spare != null ? spare : new byte[bytes.length];
        } else {
            taken = new AccessLog.Lines(Arrays.copyOf(bytes, length), length, lines, null);
        }
        length = 0;
        lines = 0;
        return taken;
    }

    LineBuffer put(char c) {
        bytes[length++] = (byte) (c < 0x80 ? c : '?');
        return this;
    }

    /** The characters of {@code text}, one byte each (the low byte: values here are ASCII). */
    @SuppressWarnings("deprecation") // getBytes(int, int, byte[], int) copies exactly that, without allocating
    LineBuffer ascii(String text) {
        int n = text.length();
        text.getBytes(0, n, bytes, length);
        length += n;
        return this;
    }

    /** Bytes already encoded (a line's constant parts). */
    LineBuffer put(byte[] encoded) {
        return put(encoded, encoded.length);
    }

    /** The first {@code n} of {@code encoded}. */
    LineBuffer put(byte[] encoded, int n) {
        System.arraycopy(encoded, 0, bytes, length, n);
        length += n;
        return this;
    }

    /** A count or size in decimal digits; a negative value (never one here) as {@code 0}. */
    LineBuffer decimal(long value) {
        if (value <= Integer.MAX_VALUE) return decimal((int) Math.max(0, value));
        return ascii(Long.toString(value)); // past 2 GiB: rare enough to allocate
    }

    private LineBuffer decimal(int value) {
        int digits = 1;
        for (int bound = 10; digits < 10 && value >= bound; bound *= 10) digits++;
        // int arithmetic: a long division per digit would cost more than the rest of the line
        for (int at = length + digits - 1; at >= length; at--) {
            bytes[at] = (byte) ('0' + value % 10);
            value /= 10;
        }
        length += digits;
        return this;
    }

    /**
     * {@code text} as a quoted JSON string, escaped by {@link Json} when it holds anything to escape; the
     * room given must count 6 bytes a character (a control character's escape) and the quotes.
     */
    LineBuffer jsonString(String text) {
        if (text == null) return put(NULL);
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
                escaped.setLength(0);
                Json.appendString(escaped, text);
                for (int j = 0, end = escaped.length(); j < end; j++) put(escaped.charAt(j));
                return this;
            }
        }
        return put('"').ascii(text).put('"');
    }
}
