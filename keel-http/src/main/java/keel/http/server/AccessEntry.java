package keel.http.server;

import keel.core.log.Json;
import keel.core.log.LogFormat;

/**
 * One line of the access log, as the connection's thread recorded it; the writer thread formats it.
 *
 * @param epochMillis   when the response had been handed to the connection (wall clock)
 * @param requestId     the client's {@code X-Request-Id}, or the one the server made
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
record AccessEntry(long epochMillis, String requestId, String method, String target, int status, long bytesIn,
                   long bytesOut, long durationNanos, String execution, String loop) {

    /** Appends the line without its line break; {@code time} is {@link #epochMillis} as ISO-8601 text. */
    void appendTo(StringBuilder line, LogFormat format, CharSequence time) {
        if (format == LogFormat.JSON) appendJson(line, time);
        else appendText(line, time);
    }

    private void appendText(StringBuilder line, CharSequence time) {
        // Every value is visible ASCII without spaces (the parser and RequestIds see to it): no quoting.
        line.append("time=").append(time).append(" event=access request_id=").append(requestId)
                .append(" method=").append(method).append(" target=").append(target)
                .append(" status=").append(status).append(" bytes_in=").append(bytesIn)
                .append(" bytes_out=").append(bytesOut).append(" duration_us=").append(durationNanos / 1_000)
                .append(" execution=").append(execution).append(" loop=").append(loop == null ? "-" : loop);
    }

    private void appendJson(StringBuilder line, CharSequence time) {
        line.append("{\"time\":\"").append(time).append("\",\"level\":\"INFO\",\"logger\":\"keel.access\",\"event\":\"access\"");
        Json.appendMember(line, "request_id", requestId);
        Json.appendMember(line, "method", method);
        Json.appendMember(line, "target", target);
        line.append(",\"status\":").append(status).append(",\"bytes_in\":").append(bytesIn)
                .append(",\"bytes_out\":").append(bytesOut).append(",\"duration_us\":").append(durationNanos / 1_000);
        Json.appendMember(line, "execution", execution);
        Json.appendMember(line, "loop", loop);
        line.append('}');
    }
}
