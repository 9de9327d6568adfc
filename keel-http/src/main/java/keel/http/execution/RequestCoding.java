package keel.http.execution;

import keel.http.HttpStatusException;
import keel.http.Request;
import keel.http.codec.GzipDecoder;

import java.io.IOException;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * The content coding of a request body (RFC 9110 §8.4): gzip is decoded, lazily, on the thread that
 * first reads the body ({@link Request#withDecodedBody}, with {@link #gzip}): a handler off the event loop decodes off the
 * loop, one that never reads the body never pays, and {@code limits.max-body-size} bounds the decoded
 * size (413 past it, through the handler's {@link HttpStatusException} path). Any other
 * coding is refused with 415 before the handler runs. A request without a body is never refused: it
 * has nothing to decode.
 */
final class RequestCoding {
    private RequestCoding() {
    }

    /** The first content coding of the body Keel cannot decode, or null when it can. */
    static String unsupported(Request request) {
        // No body, nothing to decode (body() is the body as received here: decoding is set up after this check).
        if (request.body().length == 0 || !request.headers().contains("Content-Encoding")) return null;
        int gzip = 0;
        for (String value : request.headers().all("Content-Encoding")) {
            for (String element : value.split(",")) {
                String coding = element.strip().toLowerCase(Locale.ROOT);
                if (coding.isEmpty() || coding.equals("identity")) continue;
                if (!(coding.equals("gzip") || coding.equals("x-gzip")) || ++gzip > 1) return coding;
            }
        }
        return null;
    }

    /** {@code request}, or for a gzip body a copy that decodes it on first read, to at most {@code maxBodySize} bytes. */
    static Request decoding(Request request, long maxBodySize) {
        if (request.body().length == 0 || !request.headers().contains("Content-Encoding")) return request;
        for (String value : request.headers().all("Content-Encoding")) {
            if (value.toLowerCase(Locale.ROOT).contains("gzip")) return request.withDecodedBody(gzip(maxBodySize));
        }
        return request; // identity only
    }

    /**
     * Gzip-decodes a body to at most {@code maxDecodedSize} bytes (a body limit, checked in 0..2 GiB
     * where it is set), into a buffer that stops at the limit: past it {@link HttpStatusException}
     * 413, and for data that is not valid gzip 400.
     */
    static UnaryOperator<byte[]> gzip(long maxDecodedSize) {
        return body -> {
            try {
                return GzipDecoder.decode(body, (int) maxDecodedSize);
            } catch (GzipDecoder.TooLargeException e) {
                throw new HttpStatusException(413, "request body larger than " + maxDecodedSize + " bytes once decoded");
            } catch (IOException e) {
                throw new HttpStatusException(400, "invalid gzip request body: " + e.getMessage());
            }
        };
    }
}
