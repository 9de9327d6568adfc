package keel.http;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Flow;

/**
 * An HTTP response as a plain value. A fixed body is sent with {@code Content-Length}; a streamed
 * body ({@link #stream}) is sent chunked, one chunk per published item, pulled only while the
 * connection is writable. Body arrays (and published items) are sent without a copy: do not change
 * an array after handing it to Keel. {@code Content-Length}, {@code Date}, {@code Transfer-Encoding} and
 * {@code Connection} are written by Keel, never taken from {@link #headers()}.
 */
public final class Response {
    private static final byte[] NO_BYTES = new byte[0];
    private static final Headers TEXT = Headers.of("Content-Type", "text/plain; charset=utf-8");
    private static final Headers JSON = Headers.of("Content-Type", "application/json");

    private final int status;
    private final Headers headers;
    private final byte[] body;
    private final Flow.Publisher<byte[]> stream;
    private final boolean close;

    private Response(int status, Headers headers, byte[] body, Flow.Publisher<byte[]> stream, boolean close) {
        // 1xx are interim answers that Keel sends itself (100 Continue); as a final response they would
        // leave the client waiting and desynchronise a pipelined connection.
        if (status < 200 || status > 999) throw new IllegalArgumentException("not a final status code: " + status);
        this.status = status;
        this.headers = headers;
        this.body = body;
        this.stream = stream;
        this.close = close;
    }

    /** 200 with a UTF-8 text body. */
    public static Response ok(String text) {
        return text(200, text);
    }

    public static Response text(int status, String text) {
        return new Response(status, TEXT, text.getBytes(StandardCharsets.UTF_8), null, false);
    }

    /** 200 with a JSON body already serialised. */
    public static Response json(String json) {
        return json(json.getBytes(StandardCharsets.UTF_8));
    }

    public static Response json(byte[] json) {
        return new Response(200, JSON, json, null, false);
    }

    public static Response bytes(int status, String contentType, byte[] body) {
        return new Response(status, Headers.of("Content-Type", Headers.checkValue(contentType)), body, null, false);
    }

    /** A status with no body. */
    public static Response status(int status) {
        return new Response(status, Headers.empty(), NO_BYTES, null, false);
    }

    /**
     * A chunked body: Keel subscribes on the connection's loop, requests one item at a time while the
     * connection is writable, and ends the body when the publisher completes. An error after the head
     * was sent aborts the connection (the client sees a truncated body, never a false end).
     */
    public static Response stream(int status, String contentType, Flow.Publisher<byte[]> chunks) {
        return new Response(status, Headers.of("Content-Type", Headers.checkValue(contentType)), NO_BYTES, chunks, false);
    }

    /**
     * A response received from a peer (the HTTP client builds these): the fields as they arrived, already
     * checked by the parser. A handler may return it as it is: the framing fields among
     * {@code headers} are ignored when it is written again.
     */
    public static Response of(int status, Headers headers, byte[] body) {
        return new Response(status, headers, body, null, false);
    }

    /** Like {@link #of(int, Headers, byte[])}, with a body that arrives as it is read. */
    public static Response of(int status, Headers headers, Flow.Publisher<byte[]> body) {
        return new Response(status, headers, NO_BYTES, body, false);
    }

    /** A copy with one more header; a name or value that could split the response is refused. */
    public Response header(String name, String value) {
        return new Response(status, headers.plus(Headers.checkName(name), Headers.checkValue(value)), body, stream, close);
    }

    /** A copy with one more {@code Set-Cookie} field, {@code cookie}'s: each cookie is a field of its own. */
    public Response cookie(Cookie cookie) {
        return header("Set-Cookie", cookie.headerValue());
    }

    /** A copy that closes the connection once written. */
    public Response closeConnection() {
        return new Response(status, headers, body, stream, true);
    }

    public int status() {
        return status;
    }

    public Headers headers() {
        return headers;
    }

    /** The fixed body (empty for a streamed response). */
    public byte[] body() {
        return body;
    }

    public Flow.Publisher<byte[]> stream() {
        return stream;
    }

    public boolean isStreamed() {
        return stream != null;
    }

    public boolean closesConnection() {
        return close;
    }

    @Override
    public String toString() {
        return "Response[" + status + ", " + (stream != null ? "streamed" : body.length + " bytes") + "]";
    }
}
