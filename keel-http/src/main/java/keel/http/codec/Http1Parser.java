package keel.http.codec;

import keel.http.Headers;
import keel.http.Methods;
import keel.http.Request;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/**
 * A resumable HTTP/1.1 request parser (RFC 9112) over a heap buffer. It does no I/O, never blocks and
 * does not allocate per byte: call {@link #parse} with whatever bytes arrived; it consumes what it
 * used and says what it found. One parser serves one connection, request after request.
 *
 * <pre>
 *  HEAD ──(no body)──────────────────────────────────────────► request
 *   │ Content-Length                      Transfer-Encoding: chunked
 *   ▼                                      ▼
 *  FIXED_BODY ──► request                 CHUNK_SIZE ◄──── CHUNK_DATA_END ◄── CHUNK_DATA
 *                                          │ size 0            (CRLF)        ▲  (size &gt; 0)
 *                                          ▼                                  │
 *                                         TRAILERS ──► request    CHUNK_SIZE ─┘
 *  any state ──(bad input or a limit)──► FAILED (final)
 * </pre>
 *
 * The head is found first (scanning resumes where it stopped) and then parsed in one pass, so a
 * head split across many reads costs one scan, not one parse per read.
 */
public final class Http1Parser {
    /** Longest chunk-size line accepted, extensions included. */
    private static final int MAX_CHUNK_LINE = 1024;
    /** First allocation for a body; it doubles as bytes arrive, up to the declared length. */
    private static final int INITIAL_BODY_CAPACITY = 16 * 1024;

    /**
     * @param maxHeadSize    request line plus header fields, in bytes (431 past it; 414 for a request line)
     * @param maxHeaderCount header fields per request (431 past it)
     * @param maxBodySize    body bytes (413 past it)
     */
    public record Limits(int maxHeadSize, int maxHeaderCount, long maxBodySize) {
        public Limits {
            if (maxHeadSize < 64) throw new IllegalArgumentException("maxHeadSize must be >= 64: " + maxHeadSize);
            if (maxHeaderCount < 1) throw new IllegalArgumentException("maxHeaderCount must be >= 1");
            if (maxBodySize < 0 || maxBodySize > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("maxBodySize must be in 0.." + (Integer.MAX_VALUE - 16));
            }
        }
    }

    private enum State { HEAD, FIXED_BODY, CHUNK_SIZE, CHUNK_DATA, CHUNK_DATA_END, TRAILERS, FAILED }

    private final Limits limits;
    private final Headers.Builder fieldScratch = new Headers.Builder();
    private State state = State.HEAD;
    private ParseResult.Failed failure;
    /** HEAD: bytes after the position already scanned for the end of the head. */
    private int scanned;
    /** TRAILERS: trailer bytes consumed so far (bounded like a head). */
    private int trailerBytes;

    private String method;
    private String target;
    private boolean http11;
    private boolean keepAlive;
    private boolean expectContinue;
    private Headers headers;
    private byte[] body;
    private int bodyLength;
    private int fixedLength;
    private long chunkRemaining;

    public Http1Parser(Limits limits) {
        this.limits = limits;
    }

    /** True between requests: no byte of the next request has been consumed. */
    public boolean isBetweenRequests() {
        return state == State.HEAD && scanned == 0;
    }

    /** Bytes reserved for the body being received (for tests: it grows with what arrived). */
    int bodyCapacity() {
        return body == null ? 0 : body.length;
    }

    /** True while the head of a request is being received. */
    public boolean isReadingHead() {
        return state == State.HEAD;
    }

    /**
     * Consumes bytes from {@code in} (a heap buffer in read mode) and reports what they completed.
     * After a {@link ParseResult.Failed} the parser stays failed.
     */
    public ParseResult parse(ByteBuffer in) {
        try {
            while (true) {
                ParseResult result = switch (state) {
                    case HEAD -> parseHead(in);
                    case FIXED_BODY -> readFixedBody(in);
                    case CHUNK_SIZE -> readChunkSize(in);
                    case CHUNK_DATA -> readChunkData(in);
                    case CHUNK_DATA_END -> readChunkDataEnd(in);
                    case TRAILERS -> readTrailers(in);
                    case FAILED -> failure;
                };
                if (result != null) return result;
            }
        } catch (BadRequest bad) {
            state = State.FAILED;
            failure = new ParseResult.Failed(bad.status, bad.getMessage());
            return failure;
        }
    }

    // ---- head ---------------------------------------------------------------------------------

    private ParseResult parseHead(ByteBuffer in) {
        byte[] a = in.array();
        int base = in.arrayOffset();
        int start = base + in.position();
        int limit = base + in.limit();
        if (scanned == 0) {
            // RFC 9112 §2.2: ignore empty lines received before the request line.
            while (start < limit && (a[start] == '\n' || a[start] == '\r')) {
                if (a[start] == '\n') start++;
                else if (start + 1 == limit) break; // a CR whose LF has not arrived yet
                else if (a[start + 1] == '\n') start += 2;
                else break;
            }
            in.position(start - base);
            if (start == limit || (a[start] == '\r' && start + 1 == limit)) return ParseResult.NEED_MORE;
        }
        int end = findEndOfHead(a, start + scanned, limit);
        if (end < 0) {
            if (limit - start > limits.maxHeadSize()) throw tooLarge(a, start, limit);
            return ParseResult.NEED_MORE;
        }
        if (end - start > limits.maxHeadSize()) throw tooLarge(a, start, end);
        scanned = 0;
        in.position(end - base);
        readHead(a, start, end);
        return startBody(in);
    }

    /** Index just past the empty line that ends the head, or -1 (and {@link #scanned} updated). */
    private int findEndOfHead(byte[] a, int from, int limit) {
        int headStart = from - scanned;
        for (int i = from; i < limit; i++) {
            if (a[i] != '\n') continue;
            if (i + 1 >= limit) {
                scanned = i - headStart;
                return -1;
            }
            if (a[i + 1] == '\n') return i + 2;
            if (a[i + 1] == '\r') {
                if (i + 2 >= limit) {
                    scanned = i - headStart;
                    return -1;
                }
                if (a[i + 2] == '\n') return i + 3;
            }
        }
        scanned = limit - headStart;
        return -1;
    }

    private BadRequest tooLarge(byte[] a, int start, int limit) {
        for (int i = start; i < limit && i - start <= limits.maxHeadSize(); i++) {
            if (a[i] == '\n') return new BadRequest(431, "request head larger than " + limits.maxHeadSize() + " bytes");
        }
        return new BadRequest(414, "request line longer than " + limits.maxHeadSize() + " bytes");
    }

    private void readHead(byte[] a, int start, int end) {
        int lineEnd = lineEnd(a, start, end);
        readRequestLine(a, start, contentEnd(a, start, lineEnd));
        Headers.Builder fields = fieldScratch.clear();
        int position = lineEnd + 1;
        while (true) {
            lineEnd = lineEnd(a, position, end);
            int contentEnd = contentEnd(a, position, lineEnd);
            if (contentEnd == position) break;
            if (fields.size() == limits.maxHeaderCount()) {
                throw new BadRequest(431, "more than " + limits.maxHeaderCount() + " header fields");
            }
            readField(a, position, contentEnd, fields);
            position = lineEnd + 1;
        }
        headers = fields.build();
    }

    private void readRequestLine(byte[] a, int start, int end) {
        int firstSpace = indexOf(a, start, end, (byte) ' ');
        int secondSpace = firstSpace < 0 ? -1 : indexOf(a, firstSpace + 1, end, (byte) ' ');
        if (firstSpace <= start || secondSpace <= firstSpace + 1 || indexOf(a, secondSpace + 1, end, (byte) ' ') >= 0) {
            throw new BadRequest(400, "malformed request line");
        }
        method = method(a, start, firstSpace);
        http11 = version(a, secondSpace + 1, end);
        target = target(a, firstSpace + 1, secondSpace);
    }

    private static String method(byte[] a, int start, int end) {
        int length = end - start;
        if (length == 3 && a[start] == 'G' && a[start + 1] == 'E' && a[start + 2] == 'T') return "GET";
        for (int i = 0; i < Methods.count(); i++) {
            String known = Methods.name(i);
            if (known.length() == length && known.charAt(0) == a[start] && matches(a, start, known)) return known;
        }
        for (int i = start; i < end; i++) {
            if (!Tokens.isTchar(a[i])) throw new BadRequest(400, "invalid character in method");
        }
        return new String(a, start, end - start, ISO_8859_1);
    }

    private static boolean version(byte[] a, int start, int end) {
        if (end - start == 8 && a[start] == 'H' && a[start + 4] == '/' && a[start + 5] == '1' && a[start + 6] == '.'
                && a[start + 1] == 'T' && a[start + 2] == 'T' && a[start + 3] == 'P') {
            if (a[start + 7] == '1') return true;
            if (a[start + 7] == '0') return false;
        }
        if (end - start == 8 && matches(a, start, "HTTP/") && isDigit(a[start + 5]) && a[start + 6] == '.' && isDigit(a[start + 7])) {
            throw new BadRequest(505, "HTTP version not supported");
        }
        throw new BadRequest(400, "malformed HTTP version");
    }

    private String target(byte[] a, int start, int end) {
        for (int i = start; i < end; i++) {
            byte b = a[i];
            if (b <= ' ' || b == 0x7f) throw new BadRequest(400, "invalid character in request target");
        }
        String text = new String(a, start, end - start, ISO_8859_1);
        if (a[start] == '/') return text;
        if (text.equals("*") && method.equals("OPTIONS")) return text;
        if (method.equals("CONNECT")) return text;
        return absoluteFormPath(text);
    }

    /** RFC 9112 §3.2.2: a server accepts the absolute form and routes on its path. */
    private static String absoluteFormPath(String text) {
        int scheme = text.indexOf("://");
        String lower = scheme < 0 ? "" : text.substring(0, scheme).toLowerCase(java.util.Locale.ROOT);
        if (!lower.equals("http") && !lower.equals("https")) throw new BadRequest(400, "malformed request target");
        int pathStart = text.indexOf('/', scheme + 3);
        int queryStart = text.indexOf('?', scheme + 3);
        if (pathStart < 0 || (queryStart >= 0 && queryStart < pathStart)) {
            return queryStart < 0 ? "/" : "/" + text.substring(queryStart);
        }
        return text.substring(pathStart);
    }

    private static void readField(byte[] a, int start, int end, Headers.Builder fields) {
        if (a[start] == ' ' || a[start] == '\t') throw new BadRequest(400, "obsolete line folding in header field");
        int colon = indexOf(a, start, end, (byte) ':');
        if (colon <= start) throw new BadRequest(400, "malformed header field");
        for (int i = start; i < colon; i++) {
            if (!Tokens.isTchar(a[i])) throw new BadRequest(400, "invalid character in header name");
        }
        int valueStart = colon + 1;
        int valueEnd = end;
        while (valueStart < valueEnd && (a[valueStart] == ' ' || a[valueStart] == '\t')) valueStart++;
        while (valueEnd > valueStart && (a[valueEnd - 1] == ' ' || a[valueEnd - 1] == '\t')) valueEnd--;
        for (int i = valueStart; i < valueEnd; i++) {
            byte b = a[i];
            if ((b >= 0 && b < ' ' && b != '\t') || b == 0x7f) throw new BadRequest(400, "invalid character in header value");
        }
        fields.add(Tokens.fieldName(a, start, colon), new String(a, valueStart, valueEnd - valueStart, ISO_8859_1));
    }

    // ---- framing (RFC 9112 §6) ----------------------------------------------------------------

    private ParseResult startBody(ByteBuffer in) {
        Framing framing = Framing.of(headers, http11, limits.maxBodySize());
        keepAlive = framing.keepAlive();
        expectContinue = framing.expectContinue();
        if (framing.chunked()) {
            body = new byte[(int) Math.min(1024, limits.maxBodySize())];
            bodyLength = 0;
            state = State.CHUNK_SIZE;
        } else if (framing.contentLength() > 0) {
            // Grown as bytes arrive: a client announcing a large body cannot make the server reserve it.
            fixedLength = (int) framing.contentLength();
            body = new byte[Math.min(fixedLength, INITIAL_BODY_CAPACITY)];
            bodyLength = 0;
            state = State.FIXED_BODY;
        } else {
            body = Framing.NO_BODY;
            return complete();
        }
        if (expectContinue && !in.hasRemaining()) {
            expectContinue = false;
            return ParseResult.CONTINUE_EXPECTED;
        }
        return null;
    }

    private ParseResult readFixedBody(ByteBuffer in) {
        int n = Math.min(in.remaining(), fixedLength - bodyLength);
        if (bodyLength + n > body.length) body = Arrays.copyOf(body, Math.min(fixedLength, Math.max(bodyLength + n, body.length * 2)));
        in.get(body, bodyLength, n);
        bodyLength += n;
        return bodyLength == fixedLength ? complete() : ParseResult.NEED_MORE;
    }

    private ParseResult readChunkSize(ByteBuffer in) {
        byte[] a = in.array();
        int start = in.arrayOffset() + in.position();
        int limit = in.arrayOffset() + in.limit();
        int lineEnd = indexOf(a, start, Math.min(limit, start + MAX_CHUNK_LINE), (byte) '\n');
        if (lineEnd < 0) {
            if (limit - start >= MAX_CHUNK_LINE) throw new BadRequest(400, "chunk size line too long");
            return ParseResult.NEED_MORE;
        }
        long size = Tokens.chunkSize(a, start, crlfContentEnd(a, start, lineEnd));
        in.position(lineEnd + 1 - in.arrayOffset());
        if (size == 0) {
            trailerBytes = 0;
            state = State.TRAILERS;
        } else {
            if (bodyLength + size > limits.maxBodySize()) {
                throw new BadRequest(413, "request body larger than " + limits.maxBodySize() + " bytes");
            }
            chunkRemaining = size;
            ensureBodyCapacity(bodyLength + size);
            state = State.CHUNK_DATA;
        }
        return null;
    }

    private void ensureBodyCapacity(long needed) {
        if (needed <= body.length) return;
        long grown = Math.max(needed, Math.min((long) body.length * 2, limits.maxBodySize()));
        body = Arrays.copyOf(body, (int) grown);
    }

    private ParseResult readChunkData(ByteBuffer in) {
        int n = (int) Math.min(in.remaining(), chunkRemaining);
        in.get(body, bodyLength, n);
        bodyLength += n;
        chunkRemaining -= n;
        if (chunkRemaining > 0) return ParseResult.NEED_MORE;
        state = State.CHUNK_DATA_END;
        return null;
    }

    private ParseResult readChunkDataEnd(ByteBuffer in) {
        if (!in.hasRemaining()) return ParseResult.NEED_MORE;
        byte first = in.get(in.position());
        if (first == '\r') {
            if (in.remaining() < 2) return ParseResult.NEED_MORE;
            if (in.get(in.position() + 1) != '\n') throw new BadRequest(400, "chunk data not followed by CRLF");
            in.position(in.position() + 2);
        } else {
            throw new BadRequest(400, "chunk data longer than its declared size");
        }
        state = State.CHUNK_SIZE;
        return null;
    }

    /** Trailer fields are read and dropped (RFC 9110 §6.5: a server may discard them). */
    private ParseResult readTrailers(ByteBuffer in) {
        byte[] a = in.array();
        int base = in.arrayOffset();
        while (true) {
            int start = base + in.position();
            int limit = base + in.limit();
            int lineEnd = indexOf(a, start, limit, (byte) '\n');
            if (lineEnd < 0) {
                if (trailerBytes + (limit - start) > limits.maxHeadSize()) throw new BadRequest(431, "trailer section too large");
                return ParseResult.NEED_MORE;
            }
            trailerBytes += lineEnd + 1 - start;
            if (trailerBytes > limits.maxHeadSize()) throw new BadRequest(431, "trailer section too large");
            in.position(lineEnd + 1 - base);
            if (crlfContentEnd(a, start, lineEnd) == start) {
                body = bodyLength == body.length ? body : Arrays.copyOf(body, bodyLength);
                return complete();
            }
        }
    }

    private ParseResult complete() {
        Request request = new Request(method, target, http11, keepAlive, headers, body);
        state = State.HEAD;
        method = null;
        target = null;
        headers = null;
        body = null;
        bodyLength = 0;
        return new ParseResult.Parsed(request);
    }

    // ---- small helpers ------------------------------------------------------------------------

    /** Index of the LF that ends the line starting at {@code start}; the head is known to contain one. */
    private static int lineEnd(byte[] a, int start, int end) {
        int lf = indexOf(a, start, end, (byte) '\n');
        if (lf < 0) throw new BadRequest(400, "malformed request head");
        return lf;
    }

    /** End of a line's content: drops the CR of CRLF; a CR anywhere else is invalid. */
    private static int contentEnd(byte[] a, int start, int lf) {
        int end = lf > start && a[lf - 1] == '\r' ? lf - 1 : lf;
        if (indexOf(a, start, end, (byte) '\r') >= 0) throw new BadRequest(400, "bare CR in request head");
        return end;
    }

    /**
     * Like {@link #contentEnd}, but the line must end with CRLF: RFC 9112 §7.1 allows no bare LF in
     * chunked framing, and a proxy that reads it differently would frame the body differently.
     */
    private static int crlfContentEnd(byte[] a, int start, int lf) {
        if (lf == start || a[lf - 1] != '\r') throw new BadRequest(400, "chunked framing line not ended by CRLF");
        return contentEnd(a, start, lf);
    }

    private static int indexOf(byte[] a, int from, int to, byte b) {
        for (int i = from; i < to; i++) if (a[i] == b) return i;
        return -1;
    }

    private static boolean matches(byte[] a, int start, String ascii) {
        for (int i = 0; i < ascii.length(); i++) if (a[start + i] != ascii.charAt(i)) return false;
        return true;
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    /** Control flow for invalid input inside the parser; never escapes {@link #parse}. */
    static final class BadRequest extends RuntimeException {
        final int status;

        BadRequest(int status, String reason) {
            super(reason, null, false, false);
            this.status = status;
        }
    }
}
