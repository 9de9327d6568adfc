package keel.http.client;

import keel.core.buffer.WriteQueue;
import keel.http.Headers;

/**
 * Encodes a {@link ClientRequest} as HTTP/1.1 (RFC 9112 §3): request line, fields, body. Unless the
 * request has an {@code Accept-Encoding} of its own, it asks for gzip, which the client then decodes
 * ({@link #asksForGzip}).
 */
final class RequestEncoder {
    private static final byte[] ACCEPT_GZIP = "Accept-Encoding: gzip\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private RequestEncoder() {
    }

    static void encode(ClientRequest request, WriteQueue out) {
        out.putAscii(request.method());
        out.put((byte) ' ');
        out.putAscii(request.target());
        out.putAscii(" HTTP/1.1\r\nHost: ");
        out.putAscii(request.uri().getHost());
        if (request.uri().getPort() >= 0 && request.uri().getPort() != (request.isSecure() ? 443 : 80)) {
            out.put((byte) ':');
            out.putDecimal(request.uri().getPort());
        }
        out.putAscii("\r\n");
        Headers headers = request.headers();
        for (int i = 0; i < headers.size(); i++) {
            String name = headers.name(i);
            if (isOwnedByClient(name)) continue;
            out.putAscii(name);
            out.putAscii(": ");
            out.putAscii(headers.value(i));
            out.putAscii("\r\n");
        }
        if (asksForGzip(request)) out.put(ACCEPT_GZIP);
        byte[] body = request.body();
        // RFC 9110 §8.6: a GET without a body sends no Content-Length; a POST with an empty body sends 0.
        if (body.length > 0 || !(request.method().equals("GET") || request.method().equals("HEAD"))) {
            out.putAscii("Content-Length: ");
            out.putDecimal(body.length);
            out.putAscii("\r\n");
        }
        out.putAscii("\r\n");
        if (body.length > 0) out.put(body);
    }

    /** True when the client adds {@code Accept-Encoding: gzip}, so a gzip answer is its to decode. */
    static boolean asksForGzip(ClientRequest request) {
        return !request.headers().contains("Accept-Encoding");
    }

    private static boolean isOwnedByClient(String name) {
        return name.equalsIgnoreCase("host") || name.equalsIgnoreCase("content-length")
                || name.equalsIgnoreCase("transfer-encoding") || name.equalsIgnoreCase("connection");
    }
}
