package keel.http;

import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * An HTTP request as a plain value: no reference to the connection it came from. The body is read
 * completely (up to the configured limit) before a handler sees the request. A body sent with
 * {@code Content-Encoding: gzip} is decoded when it is first read ({@link #body()}, {@link #bodyText()}),
 * on the thread that reads it (see {@link #withDecodedBody}). A request is used by one thread at a time.
 */
public final class Request {

    private final String method;
    private final String target;
    private final String path;
    private final String rawQuery;
    private final boolean http11;
    private final boolean keepAlive;
    private final Headers headers;
    /** The body as received. */
    private final byte[] body;
    /** For an encoded body: what decodes it; null when the body is used as received. */
    private final UnaryOperator<byte[]> decoder;
    private byte[] decoded;
    private HttpStatusException undecodable;
    private final Map<String, String> pathParams;
    private final List<X509Certificate> peerCertificates;
    private final InetSocketAddress remoteAddress;
    private final InetSocketAddress localAddress;
    private Map<String, List<String>> queryParams;
    private Map<String, String> cookies;

    /** A request of no connection: {@link #remoteAddress()}, {@link #localAddress()} and {@link #peerCertificates()} are null. */
    public Request(String method, String target, boolean http11, boolean keepAlive, Headers headers, byte[] body) {
        this(method, target, http11, keepAlive, headers, body, null, null, null);
    }

    /** A request of the connection from {@code remoteAddress} to {@code localAddress}; {@code peerCertificates}: null or empty for none. */
    public Request(String method, String target, boolean http11, boolean keepAlive, Headers headers, byte[] body,
                   InetSocketAddress remoteAddress, InetSocketAddress localAddress, List<X509Certificate> peerCertificates) {
        this(method, target, http11, keepAlive, headers, body, null, Map.of(), remoteAddress, localAddress,
                peerCertificates == null || peerCertificates.isEmpty() ? null : List.copyOf(peerCertificates));
    }

    private Request(String method, String target, boolean http11, boolean keepAlive, Headers headers, byte[] body,
                    UnaryOperator<byte[]> decoder, Map<String, String> pathParams, InetSocketAddress remoteAddress,
                    InetSocketAddress localAddress, List<X509Certificate> peerCertificates) {
        this.method = method;
        this.target = target;
        int question = target.indexOf('?');
        this.path = question < 0 ? target : target.substring(0, question);
        this.rawQuery = question < 0 ? null : target.substring(question + 1);
        this.http11 = http11;
        this.keepAlive = keepAlive;
        this.headers = headers;
        this.body = body;
        this.decoder = decoder;
        this.pathParams = pathParams;
        this.peerCertificates = peerCertificates;
        this.remoteAddress = remoteAddress;
        this.localAddress = localAddress;
    }

    /** A copy carrying the path parameters the router extracted. */
    public Request withPathParams(Map<String, String> params) {
        return params.isEmpty() ? this
                : new Request(method, target, http11, keepAlive, headers, body, decoder, Map.copyOf(params), remoteAddress,
                        localAddress, peerCertificates);
    }

    /**
     * A copy whose {@link #body()} is this body as {@code decoder} decodes it (the server's gzip
     * decoding, to at most the body's limit). The decoding happens on the first {@code body()} call, on
     * the calling thread (a handler off the event loop decodes off the loop; a handler that never reads
     * the body never pays for it): the {@link HttpStatusException} it throws (413 past the limit, 400
     * for data that does not decode) is thrown by that call and every later one. The copy's headers
     * drop {@code Content-Encoding} and {@code Content-Length}, which describe the encoded body. The
     * server's transports set this up.
     */
    public Request withDecodedBody(UnaryOperator<byte[]> decoder) {
        java.util.Objects.requireNonNull(decoder, "decoder");
        Headers decodedHeaders = headers.without("Content-Encoding").without("Content-Length");
        return new Request(method, target, http11, keepAlive, decodedHeaders, body, decoder, pathParams, remoteAddress,
                localAddress, peerCertificates);
    }

    public String method() {
        return method;
    }

    /** The request target as sent: path and query. */
    public String target() {
        return target;
    }

    /** The path, still percent-encoded. */
    public String path() {
        return path;
    }

    /** The query string without '?', or null. */
    public String rawQuery() {
        return rawQuery;
    }

    public boolean isHttp11() {
        return http11;
    }

    /** Whether the client asked to keep the connection open after this exchange. */
    public boolean keepAlive() {
        return keepAlive;
    }

    public Headers headers() {
        return headers;
    }

    public String header(String name) {
        return headers.get(name);
    }

    /**
     * The body: as received, or for a gzip body ({@link #withDecodedBody}) decoded on the first call.
     *
     * @throws HttpStatusException 413 when a gzip body decodes past its limit, 400 when it is not valid gzip
     */
    public byte[] body() {
        if (decoder == null) return body;
        if (decoded == null && undecodable == null) {
            try {
                decoded = decoder.apply(body);
            } catch (HttpStatusException e) {
                undecodable = e;
            }
        }
        if (undecodable != null) throw undecodable;
        return decoded;
    }

    /**
     * {@link #body()} as UTF-8 text: decoded like it, with its exceptions.
     *
     * @throws HttpStatusException 413 when a gzip body decodes past its limit, 400 when it is not valid gzip
     */
    public String bodyText() {
        return new String(body(), StandardCharsets.UTF_8);
    }

    /** A path parameter of the matched route ({@code /users/{id}}), percent-decoded. */
    public String pathParam(String name) {
        String value = pathParams.get(name);
        if (value == null) throw new IllegalArgumentException("the route has no path parameter '" + name + "'");
        return value;
    }

    public Map<String, String> pathParams() {
        return pathParams;
    }

    /**
     * The certificate chain the client presented over TLS, its own certificate first; null when the
     * connection is not TLS, the server does not ask for client certificates
     * ({@code server.tls.client-auth none}), or the client sent none ({@code want}). With {@code need},
     * every request over TLS has one, already verified against {@code server.tls.client-trust}.
     */
    public List<X509Certificate> peerCertificates() {
        return peerCertificates;
    }

    /**
     * The connection's other end: always the direct peer, the client or the proxy in front of the server
     * (headers such as {@code Forwarded} never change it). Its host is the IP address as accepted, which
     * {@link InetSocketAddress#getHostString()} reads without a DNS lookup. Null on a request built without one.
     */
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    /** The server's address and port that the connection came in on; null for a request built without addresses. */
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /** The first value of a query parameter, decoded. A malformed query answers 400. */
    public Optional<String> queryParam(String name) {
        List<String> values = queryParams().get(name);
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.getFirst());
    }

    public Map<String, List<String>> queryParams() {
        if (queryParams == null) queryParams = parseQuery(rawQuery);
        return queryParams;
    }

    private static Map<String, List<String>> parseQuery(String query) {
        if (query == null || query.isEmpty()) return Map.of();
        Map<String, List<String>> params = new LinkedHashMap<>();
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) continue;
            int equals = pair.indexOf('=');
            String name = decode(equals < 0 ? pair : pair.substring(0, equals));
            String value = equals < 0 ? "" : decode(pair.substring(equals + 1));
            params.computeIfAbsent(name, k -> new ArrayList<>(1)).add(value);
        }
        return params;
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new HttpStatusException(400, "malformed query string: " + e.getMessage());
        }
    }

    /** The value of the cookie {@code name} the client sent, or empty; see {@link #cookies()}. */
    public Optional<String> cookie(String name) {
        return Optional.ofNullable(cookies().get(name));
    }

    /**
     * The cookies the client sent, by name, in the order sent: every {@code Cookie} field, split at
     * {@code ;} (RFC 6265 §5.4), parsed on the first call. A name sent twice keeps its first value (the
     * browser sends the cookie with the longer path first); a pair without {@code =} is skipped.
     */
    public Map<String, String> cookies() {
        if (cookies == null) cookies = Cookie.parse(headers);
        return cookies;
    }

    @Override
    public String toString() {
        return method + " " + target;
    }
}
