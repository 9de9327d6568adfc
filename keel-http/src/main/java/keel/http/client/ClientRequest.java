package keel.http.client;

import keel.core.buffer.WriteQueue;
import keel.http.Headers;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * A request for {@link HttpClient}, as an immutable value: {@code ClientRequest.post(uri, json).header(..)}.
 * The client writes {@code Host} and {@code Content-Length} itself and drops {@code Connection} and
 * {@code Transfer-Encoding} fields. The method and every field are checked, so no value can forge
 * fields or requests. {@code http} and {@code https} URIs are supported.
 *
 * @param timeout    this request's {@code request-timeout}, or null for the client's
 * @param retry      this request's retry policy, or null for the client's
 * @param idempotent whether a retry is safe, or null to decide by the method
 */
public record ClientRequest(String method, URI uri, Headers headers, byte[] body, Duration timeout, RetryPolicy retry,
                            Boolean idempotent) {
    private static final byte[] NO_BODY = new byte[0];
    private static final byte[] ACCEPT_GZIP = "Accept-Encoding: gzip\r\n".getBytes(StandardCharsets.US_ASCII);

    public ClientRequest {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(body, "body");
        Headers.checkName(method);
        for (int i = 0; i < headers.size(); i++) {
            Headers.checkName(headers.name(i));
            Headers.checkValue(headers.value(i));
        }
        if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) throw new IllegalArgumentException("only http and https URIs are supported: " + uri);
        if (uri.getHost() == null) throw new IllegalArgumentException("no host in " + uri);
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) throw new IllegalArgumentException("timeout must be > 0");
    }

    public static ClientRequest of(String method, String uri) {
        return new ClientRequest(method.toUpperCase(Locale.ROOT), URI.create(uri), Headers.empty(), NO_BODY, null, null, null);
    }

    public static ClientRequest get(String uri) {
        return of("GET", uri);
    }

    /** A POST with a UTF-8 body of type {@code application/json}. */
    public static ClientRequest post(String uri, String json) {
        return of("POST", uri).body("application/json", json.getBytes(StandardCharsets.UTF_8));
    }

    /** A copy with one more header field; a name or value that could forge fields is refused. */
    public ClientRequest header(String name, String value) {
        return new ClientRequest(method, uri, headers.plus(name, value), body, timeout, retry, idempotent);
    }

    public ClientRequest body(String contentType, byte[] bytes) {
        return new ClientRequest(method, uri, headers.plus("Content-Type", contentType), bytes, timeout, retry, idempotent);
    }

    public ClientRequest timeout(Duration timeout) {
        return new ClientRequest(method, uri, headers, body, timeout, retry, idempotent);
    }

    public ClientRequest retry(RetryPolicy retry) {
        return new ClientRequest(method, uri, headers, body, timeout, retry, idempotent);
    }

    /** Declares whether repeating this request is safe, whatever its method. */
    public ClientRequest idempotent(boolean idempotent) {
        return new ClientRequest(method, uri, headers, body, timeout, retry, idempotent);
    }

    boolean isIdempotent() {
        return idempotent != null ? idempotent : RetryPolicy.isIdempotent(method);
    }

    /** True for an {@code https} URI: the connection speaks TLS. */
    boolean isSecure() {
        return "https".equalsIgnoreCase(uri.getScheme());
    }

    int port() {
        return uri.getPort() >= 0 ? uri.getPort() : isSecure() ? 443 : 80;
    }

    /** The origin-form target: path and query, with any non-ASCII character percent-encoded (RFC 3986). */
    String target() {
        URI ascii = URI.create(uri.toASCIIString());
        String path = ascii.getRawPath();
        String query = ascii.getRawQuery();
        String target = path == null || path.isEmpty() ? "/" : path;
        return query == null ? target : target + "?" + query;
    }

    /**
     * Writes this request as HTTP/1.1 (RFC 9112 §3): request line, fields, body. Unless it has an
     * {@code Accept-Encoding} of its own, it asks for gzip, which the client then decodes ({@link #asksForGzip}).
     */
    void encode(WriteQueue out) {
        out.putAscii(method);
        out.put((byte) ' ');
        out.putAscii(target());
        out.putAscii(" HTTP/1.1\r\nHost: ");
        out.putAscii(uri.getHost());
        if (uri.getPort() >= 0 && uri.getPort() != (isSecure() ? 443 : 80)) {
            out.put((byte) ':');
            out.putDecimal(uri.getPort());
        }
        out.putAscii("\r\n");
        for (int i = 0; i < headers.size(); i++) {
            String name = headers.name(i);
            if (isOwnedByClient(name)) continue;
            out.putAscii(name);
            out.putAscii(": ");
            out.putAscii(headers.value(i));
            out.putAscii("\r\n");
        }
        if (asksForGzip()) out.put(ACCEPT_GZIP);
        // RFC 9110 §8.6: a GET without a body sends no Content-Length; a POST with an empty body sends 0.
        if (body.length > 0 || !(method.equals("GET") || method.equals("HEAD"))) {
            out.putAscii("Content-Length: ");
            out.putDecimal(body.length);
            out.putAscii("\r\n");
        }
        out.putAscii("\r\n");
        if (body.length > 0) out.put(body);
    }

    /** True when the client adds {@code Accept-Encoding: gzip}, so a gzip answer is its to decode. */
    boolean asksForGzip() {
        return !headers.contains("Accept-Encoding");
    }

    private static boolean isOwnedByClient(String name) {
        return name.equalsIgnoreCase("host") || name.equalsIgnoreCase("content-length")
                || name.equalsIgnoreCase("transfer-encoding") || name.equalsIgnoreCase("connection");
    }

    @Override
    public String toString() {
        return method + " " + uri;
    }
}
