package keel.http.execution;

import keel.core.log.Log;
import keel.http.Headers;
import keel.http.Request;
import keel.http.Response;
import keel.http.codec.GzipEncoder;
import keel.http.codec.Http1Writer;

import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The one place that decides whether a response goes gzip-encoded (the server's {@code compression.*} settings),
 * for both transports. The {@link Dispatcher} applies it as a handler's answer leaves the handler, so
 * the work happens on the thread that produced the answer: a worker or virtual thread compresses a
 * fixed body there, and the event loop only for an {@code EVENT_LOOP} handler (and the blocking
 * transport on the connection's own thread). A streamed body is wrapped ({@link GzipStream}): each
 * item is compressed as it is published, on the publisher's thread.
 *
 * <p>A HEAD request gets what GET would: the body is compressed to announce its compressed length in
 * {@code Content-Length}, with {@code Content-Encoding: gzip}, and the transport then leaves the body out.
 */
public final class ResponseCompression {
    private static final Log LOG = Log.of(ResponseCompression.class);
    private static final String VARY = "Vary";
    private static final String ACCEPT_ENCODING = "Accept-Encoding";

    private final boolean enabled;
    private final int minSize;
    private final int level;
    private final List<String> types;

    /**
     * Off unless {@code enabled}; bodies of {@code minSize} bytes or more, of a media type in
     * {@code types} (ranges such as {@code text/*}, lower case), at gzip level {@code level}.
     */
    public ResponseCompression(boolean enabled, int minSize, int level, List<String> types) {
        this.enabled = enabled;
        this.minSize = minSize;
        this.level = level;
        this.types = List.copyOf(types);
    }

    /**
     * What to hand on for {@code request} when its handler answered {@code response}: {@link #apply}'s
     * answer, or {@code response} itself when compression is off. Never throws: a response that
     * cannot be compressed goes as it is, so the exchange always gets its answer.
     */
    Response answer(Request request, Response response) {
        if (!enabled) return response;
        try {
            return apply(request, response);
        } catch (RuntimeException e) {
            LOG.warn("compression_failed", e, "request", request);
            return response;
        }
    }

    /** The response to send for {@code request}: gzip-encoded, marked {@code Vary}, or as it is; on the calling thread. */
    Response apply(Request request, Response response) {
        if (!qualifies(response)) return response;
        Headers headers = varyOnAcceptEncoding(response.headers());
        if (!AcceptEncoding.prefersGzip(request.headers())) return with(response, headers);
        Headers encoded = weakenEntityTag(headers).plus("Content-Encoding", "gzip");
        if (response.isStreamed()) {
            return keepClose(response, Response.of(response.status(), encoded, new GzipStream(response.stream(), level)));
        }
        byte[] gzip = GzipEncoder.gzipIfSmaller(response.body(), level);
        if (gzip == null) return with(response, headers); // incompressible: gzip would not be smaller
        return keepClose(response, Response.of(response.status(), encoded, gzip));
    }

    /** Whether the body could go gzip-encoded to a client that asks: its answer then varies with Accept-Encoding. */
    private boolean qualifies(Response response) {
        int status = response.status();
        if (Http1Writer.hasNoBody(status) || status == 206) return false; // 206: ranges address the body as it is
        Headers headers = response.headers();
        if (headers.contains("Content-Encoding")) return false;
        if (!response.isStreamed() && response.body().length < minSize) return false;
        return isCompressible(headers.get("Content-Type"));
    }

    /** Whether {@code contentType} matches one of the configured ranges ({@code text/*}, {@code application/*+json}, …). */
    boolean isCompressible(String contentType) {
        if (contentType == null) return false;
        int semicolon = contentType.indexOf(';');
        String mediaType = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
        int slash = mediaType.indexOf('/');
        if (slash <= 0) return false;
        for (String range : types) {
            if (matches(range, mediaType, slash)) return true;
        }
        return false;
    }

    private static boolean matches(String range, String mediaType, int slash) {
        int rangeSlash = range.indexOf('/');
        if (rangeSlash != slash || !range.regionMatches(0, mediaType, 0, slash)) return false;
        String subtype = range.substring(rangeSlash + 1);
        if (subtype.equals("*")) return true;
        if (subtype.startsWith("*+")) return mediaType.endsWith(subtype.substring(1)) && mediaType.length() > slash + subtype.length();
        return mediaType.length() == range.length() && mediaType.endsWith(subtype);
    }

    /** {@code headers} with {@code Vary: Accept-Encoding}, unless a Vary field already names it or {@code *}. */
    private static Headers varyOnAcceptEncoding(Headers headers) {
        for (String vary : headers.all(VARY)) {
            for (String name : vary.split(",")) {
                String n = name.strip();
                if (n.equals("*") || n.equalsIgnoreCase(ACCEPT_ENCODING)) return headers;
            }
        }
        return headers.plus(VARY, ACCEPT_ENCODING);
    }

    /**
     * RFC 9110 §8.8.1: a strong entity tag names one exact representation, and the gzip one is another:
     * its tag goes weak, so a range or conditional request can never mix the two.
     */
    private static Headers weakenEntityTag(Headers headers) {
        String tag = headers.get("ETag");
        if (tag == null || tag.startsWith("W/")) return headers;
        return headers.without("ETag").plus("ETag", "W/" + tag);
    }

    private static Response with(Response response, Headers headers) {
        if (headers == response.headers()) return response;
        Response copy = response.isStreamed() ? Response.of(response.status(), headers, response.stream())
                : Response.of(response.status(), headers, response.body());
        return keepClose(response, copy);
    }

    private static Response keepClose(Response original, Response copy) {
        return original.closesConnection() ? copy.closeConnection() : copy;
    }
}
