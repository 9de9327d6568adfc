package keel.http.codec;

import keel.core.buffer.WriteQueue;
import keel.http.Response;

import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.util.Map.entry;

/**
 * Encodes responses into a {@link WriteQueue}. Keel owns the framing fields: {@code Content-Length}
 * or {@code Transfer-Encoding}, {@code Date} and {@code Connection} come from here, never from the
 * response's own headers.
 */
public final class Http1Writer {
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] CONTENT_LENGTH = "Content-Length: ".getBytes(ISO_8859_1);
    private static final byte[] CHUNKED = "Transfer-Encoding: chunked\r\n".getBytes(ISO_8859_1);
    private static final byte[] CLOSE = "Connection: close\r\n".getBytes(ISO_8859_1);
    private static final byte[] KEEP_ALIVE = "Connection: keep-alive\r\n".getBytes(ISO_8859_1);
    private static final String REQUEST_ID = "X-Request-Id";
    private static final byte[] REQUEST_ID_FIELD = (REQUEST_ID + ": ").getBytes(ISO_8859_1);
    private static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(ISO_8859_1);
    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(ISO_8859_1);
    /** The reason phrases of the statuses Keel sends (RFC 9110 §15); another status gets "Status " and its code. */
    private static final Map<Integer, String> REASON_PHRASES = Map.ofEntries(
            entry(100, "Continue"), entry(101, "Switching Protocols"),
            entry(200, "OK"), entry(201, "Created"), entry(202, "Accepted"), entry(204, "No Content"), entry(206, "Partial Content"),
            entry(301, "Moved Permanently"), entry(302, "Found"), entry(303, "See Other"), entry(304, "Not Modified"),
            entry(307, "Temporary Redirect"), entry(308, "Permanent Redirect"),
            entry(400, "Bad Request"), entry(401, "Unauthorized"), entry(403, "Forbidden"), entry(404, "Not Found"),
            entry(405, "Method Not Allowed"), entry(406, "Not Acceptable"), entry(408, "Request Timeout"), entry(409, "Conflict"),
            entry(410, "Gone"), entry(411, "Length Required"), entry(413, "Content Too Large"), entry(414, "URI Too Long"),
            entry(415, "Unsupported Media Type"), entry(417, "Expectation Failed"), entry(422, "Unprocessable Content"),
            entry(426, "Upgrade Required"), entry(429, "Too Many Requests"), entry(431, "Request Header Fields Too Large"),
            entry(500, "Internal Server Error"), entry(501, "Not Implemented"), entry(502, "Bad Gateway"),
            entry(503, "Service Unavailable"), entry(504, "Gateway Timeout"), entry(505, "HTTP Version Not Supported"));
    /** Status lines made on first use; an atomic array publishes each line's bytes safely to every loop. */
    private static final AtomicReferenceArray<byte[]> STATUS_LINES = new AtomicReferenceArray<>(1000);

    /**
     * How the body after the head is delimited. {@code NONE}: the status never has a body (1xx, 204,
     * 304), so no framing field is sent (RFC 9110 §8.6, RFC 9112 §6.3).
     */
    public enum BodyFraming { FIXED, CHUNKED, UNTIL_CLOSE, NONE }

    private Http1Writer() {
    }

    /**
     * Does the one-time work of the first response (date formatting and its locale data, the common
     * status lines) now, so it does not stall an event loop on the first request.
     */
    public static void prepare() {
        DateHeader.line(System.nanoTime());
        for (int status : new int[]{200, 204, 400, 404, 405, 408, 413, 431, 500, 503}) statusLine(status);
    }

    /**
     * Writes a whole response with a fixed body.
     *
     * @param omitBody     true for a HEAD request: the head announces the length, no body follows
     * @param close        true to announce {@code Connection: close}
     * @param http10Client true when the request was HTTP/1.0 (keep-alive must then be announced)
     * @param requestId    sent as {@code X-Request-Id} unless the response has one (visible ASCII); null for none
     * @param nanoTime     when the response is made, on the {@link System#nanoTime()} scale: its {@code Date}
     */
    public static void writeFixed(WriteQueue out, Response response, boolean omitBody, boolean close, boolean http10Client,
                                  CharSequence requestId, long nanoTime) {
        byte[] body = response.body();
        boolean noBody = hasNoBody(response.status());
        writeHead(out, response, noBody ? BodyFraming.NONE : BodyFraming.FIXED, body.length, close, http10Client, requestId, nanoTime);
        if (!noBody && !omitBody && body.length > 0) out.put(body);
    }

    public static void writeHead(WriteQueue out, Response response, BodyFraming framing, long contentLength,
                                 boolean close, boolean http10Client, CharSequence requestId, long nanoTime) {
        out.put(statusLine(response.status()));
        out.put(response.headers().wireBytes(Http1Writer::isFramingField));
        if (requestId != null && !response.headers().contains(REQUEST_ID)) {
            out.put(REQUEST_ID_FIELD);
            out.putAscii(requestId);
            out.put(CRLF);
        }
        switch (framing) {
            case FIXED -> {
                out.put(CONTENT_LENGTH);
                out.putDecimal(contentLength);
                out.put(CRLF);
            }
            case CHUNKED -> out.put(CHUNKED);
            case UNTIL_CLOSE, NONE -> { }
        }
        out.put(DateHeader.line(nanoTime));
        if (close) out.put(CLOSE);
        else if (http10Client) out.put(KEEP_ALIVE);
        out.put(CRLF);
    }

    /**
     * The framing of a streamed body: chunked for HTTP/1.1, until-close for an HTTP/1.0 client (which
     * cannot read chunks), none for a status without a body.
     */
    public static BodyFraming streamFraming(int status, boolean http11) {
        if (hasNoBody(status)) return BodyFraming.NONE;
        return http11 ? BodyFraming.CHUNKED : BodyFraming.UNTIL_CLOSE;
    }

    /** Statuses that never carry a body. */
    public static boolean hasNoBody(int status) {
        return status < 200 || status == 204 || status == 304;
    }

    public static void writeContinue(WriteQueue out) {
        out.put(CONTINUE);
    }

    public static void writeChunk(WriteQueue out, byte[] data) {
        if (data.length == 0) return; // an empty chunk would end the body
        out.putHex(data.length);
        out.put(CRLF);
        out.put(data);
        out.put(CRLF);
    }

    public static void writeLastChunk(WriteQueue out) {
        out.put(LAST_CHUNK);
    }

    private static boolean isFramingField(String name) {
        return switch (name.length()) {
            case 4 -> name.equalsIgnoreCase("date");
            case 10 -> name.equalsIgnoreCase("connection");
            case 14 -> name.equalsIgnoreCase("content-length");
            case 17 -> name.equalsIgnoreCase("transfer-encoding");
            default -> false;
        };
    }

    private static byte[] statusLine(int status) {
        byte[] line = STATUS_LINES.get(status);
        if (line == null) {
            String reason = REASON_PHRASES.getOrDefault(status, "Status " + status);
            line = ("HTTP/1.1 " + status + " " + reason + "\r\n").getBytes(ISO_8859_1);
            STATUS_LINES.set(status, line); // two threads may both make it: the same bytes
        }
        return line;
    }
}
