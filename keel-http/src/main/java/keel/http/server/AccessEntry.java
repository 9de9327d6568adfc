package keel.http.server;

import keel.core.log.LogFormat;

import java.io.IOException;

import static java.nio.charset.StandardCharsets.US_ASCII;

/**
 * One line of the access log, as the connection's thread recorded it; the writer thread encodes it.
 *
 * @param endNanos      when the response had been handed to the connection ({@link System#nanoTime()}: the
 *                      writer turns it into wall-clock time, sparing the connection's thread a clock read)
 * @param requestId     the client's {@code X-Request-Id}; null when the server made the id
 * @param madeId        the number of the id the server made ({@link RequestIds}), when {@code requestId} is null
 * @param method        the request's method, {@code -} when no request could be read
 * @param target        the request target as sent, {@code -} when no request could be read
 * @param status        the response's status
 * @param bytesIn       the request body's length (after chunked decoding), not counting the head
 * @param bytesOut      the response's bytes, head and body, as handed to the connection (before TLS)
 * @param durationNanos from the request being parsed to the response's last byte being handed to the
 *                      connection: queued on its loop (nio, written in the same loop turn) or written
 *                      to the socket (blocking); 0 when no request could be read
 * @param execution     where the handler ran: {@code event-loop}, {@code worker-pool},
 *                      {@code virtual-thread} (nio) or {@code blocking} (the connection's thread)
 * @param loop          the connection's event loop; null on the blocking transport
 */
record AccessEntry(long endNanos, String requestId, long madeId, String method, String target, int status, long bytesIn,
                   long bytesOut, long durationNanos, String execution, String loop) {

    /** Room for a line without its target and request id, so that one usually goes to the sink whole. */
    private static final int LINE_ROOM = 320;
    private static final byte[] TEXT_TIME = bytes("time=");
    private static final byte[] TEXT_ID = bytes(" event=access request_id=");
    private static final byte[] TEXT_METHOD = bytes(" method=");
    private static final byte[] TEXT_TARGET = bytes(" target=");
    private static final byte[] TEXT_STATUS = bytes(" status=");
    private static final byte[] TEXT_BYTES_IN = bytes(" bytes_in=");
    private static final byte[] TEXT_BYTES_OUT = bytes(" bytes_out=");
    private static final byte[] TEXT_DURATION = bytes(" duration_us=");
    private static final byte[] TEXT_EXECUTION = bytes(" execution=");
    private static final byte[] TEXT_LOOP = bytes(" loop=");
    private static final byte[] JSON_TIME = bytes("{\"time\":\"");
    private static final byte[] JSON_ID = bytes("\",\"level\":\"INFO\",\"logger\":\"keel.access\",\"event\":\"access\",\"request_id\":");
    private static final byte[] JSON_METHOD = bytes(",\"method\":");
    private static final byte[] JSON_TARGET = bytes(",\"target\":");
    private static final byte[] JSON_STATUS = bytes(",\"status\":");
    private static final byte[] JSON_BYTES_IN = bytes(",\"bytes_in\":");
    private static final byte[] JSON_BYTES_OUT = bytes(",\"bytes_out\":");
    private static final byte[] JSON_DURATION = bytes(",\"duration_us\":");
    private static final byte[] JSON_EXECUTION = bytes(",\"execution\":");
    private static final byte[] JSON_LOOP = bytes(",\"loop\":");

    /**
     * Writes the line and its line break; {@code time} is {@link #endNanos} as ISO-8601 text, and a
     * made id starts with {@code idPrefix}.
     */
    void writeTo(LineBuffer line, LogFormat format, byte[] time, String idPrefix) throws IOException {
        line.startLine(LINE_ROOM + target.length() + (requestId == null ? 0 : requestId.length()));
        if (format == LogFormat.JSON) writeJson(line, time, idPrefix);
        else writeText(line, time, idPrefix);
        line.endLine();
    }

    private void writeText(LineBuffer line, byte[] time, String idPrefix) throws IOException {
        // Every value is visible ASCII without spaces (the parser and RequestIds see to it): no quoting.
        line.put(TEXT_TIME).put(time).put(TEXT_ID);
        if (requestId == null) line.ascii(idPrefix).hex(madeId);
        else line.ascii(requestId);
        line.put(TEXT_METHOD).ascii(method)
                .put(TEXT_TARGET).ascii(target).put(TEXT_STATUS).decimal(status).put(TEXT_BYTES_IN).decimal(bytesIn)
                .put(TEXT_BYTES_OUT).decimal(bytesOut).put(TEXT_DURATION).decimal(durationNanos / 1_000)
                .put(TEXT_EXECUTION).ascii(execution).put(TEXT_LOOP).ascii(loop == null ? "-" : loop);
    }

    private void writeJson(LineBuffer line, byte[] time, String idPrefix) throws IOException {
        line.put(JSON_TIME).put(time).put(JSON_ID);
        if (requestId == null) line.put('"').ascii(idPrefix).hex(madeId).put('"');
        else line.jsonString(requestId);
        line.put(JSON_METHOD).jsonString(method)
                .put(JSON_TARGET).jsonString(target).put(JSON_STATUS).decimal(status).put(JSON_BYTES_IN).decimal(bytesIn)
                .put(JSON_BYTES_OUT).decimal(bytesOut).put(JSON_DURATION).decimal(durationNanos / 1_000)
                .put(JSON_EXECUTION).jsonString(execution).put(JSON_LOOP).jsonString(loop).put('}');
    }

    private static byte[] bytes(String text) {
        return text.getBytes(US_ASCII);
    }
}
