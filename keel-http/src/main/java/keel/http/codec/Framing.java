package keel.http.codec;

import keel.http.Headers;

import java.util.Locale;

/**
 * How a request's body is delimited and whether the connection stays open, from its header fields
 * (RFC 9112 §6 and §9). Every rule that protects against request smuggling lives here.
 */
record Framing(boolean chunked, long contentLength, boolean keepAlive, boolean expectContinue) {
    static final byte[] NO_BODY = new byte[0];

    static Framing of(Headers headers, boolean http11, long maxBodySize) {
        int hosts = 0;
        String contentLength = null;
        String transferEncoding = null;
        boolean close = false;
        boolean keepAliveToken = false;
        boolean expectContinue = false;
        for (int i = 0; i < headers.size(); i++) {
            String name = headers.name(i);
            String value = headers.value(i);
            switch (name.length()) {
                case 4 -> {
                    if (name.equalsIgnoreCase("host")) hosts++;
                }
                case 6 -> {
                    if (name.equalsIgnoreCase("expect")) {
                        if (!value.equalsIgnoreCase("100-continue")) throw new Http1Parser.BadRequest(417, "unsupported expectation: " + value);
                        expectContinue = http11;
                    }
                }
                case 10 -> {
                    if (name.equalsIgnoreCase("connection")) {
                        for (String token : value.split(",")) {
                            String t = token.trim();
                            if (t.equalsIgnoreCase("close")) close = true;
                            else if (t.equalsIgnoreCase("keep-alive")) keepAliveToken = true;
                        }
                    }
                }
                case 14 -> {
                    if (name.equalsIgnoreCase("content-length")) contentLength = merge(contentLength, value);
                }
                case 17 -> {
                    if (name.equalsIgnoreCase("transfer-encoding")) {
                        transferEncoding = transferEncoding == null ? value : transferEncoding + "," + value;
                    }
                }
                default -> { }
            }
        }
        if (http11 && hosts == 0) throw new Http1Parser.BadRequest(400, "missing Host header");
        if (hosts > 1) throw new Http1Parser.BadRequest(400, "more than one Host header");
        boolean keepAlive = http11 ? !close : keepAliveToken && !close;
        if (transferEncoding != null) {
            // RFC 9112 §6.3: both framings at once is how requests are smuggled; refuse it.
            if (contentLength != null) {
                throw new Http1Parser.BadRequest(400, "both Content-Length and Transfer-Encoding (request smuggling)");
            }
            if (!http11) throw new Http1Parser.BadRequest(400, "Transfer-Encoding in an HTTP/1.0 request");
            checkChunkedOnly(transferEncoding);
            return new Framing(true, -1, keepAlive, expectContinue);
        }
        long length = 0;
        if (contentLength != null) {
            length = Tokens.contentLength(contentLength);
            if (length > maxBodySize) throw new Http1Parser.BadRequest(413, "request body larger than " + maxBodySize + " bytes");
        }
        return new Framing(false, length, keepAlive, expectContinue && length > 0);
    }

    /** Repeated Content-Length fields (or a list) are accepted only when every value is the same. */
    private static String merge(String previous, String value) {
        String merged = previous;
        for (String part : value.split(",", -1)) {
            String v = part.trim();
            if (merged != null && !merged.equals(v)) throw new Http1Parser.BadRequest(400, "invalid Content-Length");
            merged = v;
        }
        return merged;
    }

    private static void checkChunkedOnly(String codings) {
        int chunked = 0;
        for (String coding : codings.split(",")) {
            String c = coding.trim().toLowerCase(Locale.ROOT);
            if (c.isEmpty()) continue;
            if (!c.equals("chunked")) throw new Http1Parser.BadRequest(501, "unsupported transfer coding: " + c);
            chunked++;
        }
        if (chunked != 1) throw new Http1Parser.BadRequest(400, "invalid Transfer-Encoding");
    }
}
