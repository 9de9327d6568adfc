package keel.http.codec;

import keel.http.Headers;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/**
 * Finds the end of an HTTP/1.1 message head as its bytes arrive, and reads its lines and header
 * fields (RFC 9112 §2.2, §5). Scanning resumes where it stopped, so a head split across many reads
 * costs one scan; once found, the head is read in one pass. Request and response parsers share it.
 */
final class MessageHead {
    /** Bytes of the current head (from its first byte) already scanned for its end. */
    private int scanned;

    /** Bytes of a head not yet complete that were already scanned: 0 before its first byte (or a lone LF). */
    int scanned() {
        return scanned;
    }

    /**
     * Index just past the empty line that ends the head starting at {@code start}, or -1 when
     * {@code a[start..limit)} does not hold it yet (the next call resumes where this one stopped).
     */
    int find(byte[] a, int start, int limit) {
        for (int i = start + scanned; i < limit; i++) {
            if (a[i] != '\n') continue;
            if (i + 1 >= limit) return notYet(i - start);
            if (a[i + 1] == '\n') return found(i + 2);
            if (a[i + 1] == '\r') {
                if (i + 2 >= limit) return notYet(i - start);
                if (a[i + 2] == '\n') return found(i + 3);
            }
        }
        return notYet(limit - start);
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
        int lf = Tokens.indexOf(a, start, end, (byte) '\n');
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
     * Reads the field lines from {@code position} up to the empty line that ends the head at {@code end}
     * into {@code fields} (cleared by the caller) and returns them; more than {@code maxCount} is a 431.
     */
    static Headers readFields(byte[] a, int position, int end, int maxCount, Headers.Builder fields) {
        while (true) {
            int lineEnd = lineEnd(a, position, end);
            int contentEnd = contentEnd(a, position, lineEnd);
            if (contentEnd == position) return fields.build();
            if (fields.size() == maxCount) throw new BadMessage(431, "more than " + maxCount + " header fields");
            readField(a, position, contentEnd, fields);
            position = lineEnd + 1;
        }
    }

    private static void readField(byte[] a, int start, int end, Headers.Builder fields) {
        if (a[start] == ' ' || a[start] == '\t') throw new BadMessage("obsolete line folding in header field");
        int colon = Tokens.indexOf(a, start, end, (byte) ':');
        if (colon <= start) throw new BadMessage("malformed header field");
        for (int i = start; i < colon; i++) {
            if (!Tokens.isTchar(a[i])) throw new BadMessage("invalid character in header name");
        }
        int valueStart = colon + 1;
        int valueEnd = end;
        while (valueStart < valueEnd && (a[valueStart] == ' ' || a[valueStart] == '\t')) valueStart++;
        while (valueEnd > valueStart && (a[valueEnd - 1] == ' ' || a[valueEnd - 1] == '\t')) valueEnd--;
        for (int i = valueStart; i < valueEnd; i++) {
            byte b = a[i];
            if ((b >= 0 && b < ' ' && b != '\t') || b == 0x7f) throw new BadMessage("invalid character in header value");
        }
        fields.add(Tokens.fieldName(a, start, colon), new String(a, valueStart, valueEnd - valueStart, ISO_8859_1));
    }
}
