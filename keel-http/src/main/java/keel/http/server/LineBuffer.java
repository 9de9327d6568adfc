package keel.http.server;

import keel.core.log.Json;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The access log writer's buffer: lines encoded straight into bytes and handed to the sink in pieces
 * of at most its capacity. Values are ASCII (the parser and {@link RequestIds} see to it); a character
 * outside it becomes {@code ?} in text and an escape in JSON. Confined to the writer thread.
 */
final class LineBuffer {
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private final OutputStream sink;
    private final byte[] bytes;
    private final StringBuilder escaped = new StringBuilder(64);
    private int length;
    /** Whole lines held, not yet handed to the sink: what a failed write loses. */
    private int lines;

    LineBuffer(OutputStream sink, int capacity) {
        this.sink = sink;
        this.bytes = new byte[capacity];
    }

    /** Starts a line: what is held goes to the sink first when fewer than {@code room} bytes are left. */
    LineBuffer startLine(int room) throws IOException {
        if (bytes.length - length < room) write();
        return this;
    }

    /** Ends a line with its line break. */
    void endLine() throws IOException {
        put('\n');
        lines++;
    }

    LineBuffer put(char c) throws IOException {
        if (length == bytes.length) write(); // a line longer than the buffer goes in pieces
        bytes[length++] = (byte) (c < 0x80 ? c : '?');
        return this;
    }

    /** The characters of {@code text}, one byte each (the low byte: values here are ASCII). */
    @SuppressWarnings("deprecation") // getBytes(int, int, byte[], int) copies exactly that, without allocating
    LineBuffer ascii(String text) throws IOException {
        int n = text.length();
        if (bytes.length - length < n) return asciiInPieces(text);
        text.getBytes(0, n, bytes, length);
        length += n;
        return this;
    }

    /** Bytes already encoded (a line's constant parts). */
    LineBuffer put(byte[] encoded) throws IOException {
        if (bytes.length - length < encoded.length) return asciiInPieces(new String(encoded, java.nio.charset.StandardCharsets.ISO_8859_1));
        System.arraycopy(encoded, 0, bytes, length, encoded.length);
        length += encoded.length;
        return this;
    }

    private LineBuffer asciiInPieces(CharSequence text) throws IOException {
        for (int i = 0, end = text.length(); i < end; i++) put(text.charAt(i));
        return this;
    }

    /** A count or size in decimal digits; a negative value (never one here) as {@code 0}. */
    LineBuffer decimal(long value) throws IOException {
        if (value <= Integer.MAX_VALUE) return decimal((int) Math.max(0, value));
        return ascii(Long.toString(value)); // past 2 GiB: rare enough to allocate
    }

    private LineBuffer decimal(int value) throws IOException {
        int digits = 1;
        for (int bound = 10; digits < 10 && value >= bound; bound *= 10) digits++;
        if (bytes.length - length < digits) write();
        // int arithmetic: a long division per digit would cost more than the rest of the line
        for (int at = length + digits - 1; at >= length; at--) {
            bytes[at] = (byte) ('0' + value % 10);
            value /= 10;
        }
        length += digits;
        return this;
    }

    /** {@code value} in lower-case hex digits, without leading zeros. */
    LineBuffer hex(long value) throws IOException {
        if (bytes.length - length < 16) write();
        for (int shift = (63 - Long.numberOfLeadingZeros(value | 1)) & ~3; shift >= 0; shift -= 4) {
            bytes[length++] = HEX[(int) (value >>> shift) & 0xf];
        }
        return this;
    }

    /** {@code text} as a quoted JSON string, escaped by {@link Json} when it holds anything to escape. */
    LineBuffer jsonString(String text) throws IOException {
        if (text == null) return ascii("null");
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
                escaped.setLength(0);
                return asciiInPieces(Json.appendString(escaped, text));
            }
        }
        return put('"').ascii(text).put('"');
    }

    /** Hands what is held to the sink and flushes it. */
    void flush() throws IOException {
        write();
        sink.flush();
    }

    /** Forgets what is held (after a failed write); returns how many whole lines that was. */
    int discard() {
        int lost = lines;
        length = 0;
        lines = 0;
        return lost;
    }

    private void write() throws IOException {
        if (length > 0) sink.write(bytes, 0, length);
        length = 0;
        lines = 0;
    }
}
