package keel.http.codec;

import keel.http.Headers;

import java.util.Locale;

/**
 * How a message's body is delimited and whether the connection stays open, from its header fields
 * (RFC 9112 §6 and §9). Every rule that protects against request smuggling lives here.
 * {@code contentLength} is -1 for a chunked body, and for a response body that runs until the
 * connection closes.
 */
record Framing(boolean chunked, long contentLength, boolean keepAlive, boolean expectContinue) {
    static final byte[] NO_BODY = new byte[0];

    /**
     * The framing of a request; {@code fields} is the parser's own, read again for every request and
     * cleared after, but for the last valid {@code Host} (a string the parser's {@link LastHead} holds too).
     */
    static Framing of(Fields fields, Headers headers, boolean http11, long maxBodySize) {
        try {
            fields.read(headers);
            if (fields.unsupportedExpectation != null) throw new BadMessage(417, "unsupported expectation: " + fields.unsupportedExpectation);
            if (http11 && fields.hosts == 0) throw new BadMessage("missing Host header");
            if (fields.hosts > 1) throw new BadMessage("more than one Host header");
            // RFC 9112 §3.2: a Host field with an invalid value is answered 400 like a missing one.
            if (fields.host != null && fields.host != fields.checkedHost) {
                if (!Tokens.isHost(fields.host)) throw new BadMessage("invalid Host header");
                fields.checkedHost = fields.host; // a client's next requests bring the same string back (LastHead)
            }
            boolean keepAlive = fields.keepAlive(http11);
            boolean expectContinue = fields.expectContinue && http11;
            if (fields.transferEncoding != null) {
                // RFC 9112 §6.3: both framings at once is how requests are smuggled; refuse it.
                if (fields.contentLength != null) throw new BadMessage("both Content-Length and Transfer-Encoding (request smuggling)");
                if (!http11) throw new BadMessage("Transfer-Encoding in an HTTP/1.0 request");
                checkChunkedOnly(fields.transferEncoding);
                return new Framing(true, -1, keepAlive, expectContinue);
            }
            long length = 0;
            if (fields.contentLength != null) {
                length = Tokens.contentLength(fields.contentLength);
                if (length > maxBodySize) throw new BadMessage(413, "request body larger than " + maxBodySize + " bytes");
            }
            return new Framing(false, length, keepAlive, expectContinue && length > 0);
        } finally {
            fields.clear();
        }
    }

    /**
     * The framing of a final response (RFC 9112 §6.3, rules in its order). A 101 response keeps no
     * HTTP connection alive: the connection speaks another protocol after it.
     */
    static Framing ofResponse(int status, boolean headRequest, Headers headers, boolean http11) {
        Fields fields = new Fields();
        fields.read(headers);
        boolean keepAlive = fields.keepAlive(http11) && status != 101;
        if (headRequest || status < 200 || status == 204 || status == 304) return new Framing(false, 0, keepAlive, false);
        if (fields.transferEncoding != null) {
            // RFC 9112 §6.3: a message with both framings may have been smuggled past an intermediary.
            if (fields.contentLength != null) throw new BadMessage("both Content-Length and Transfer-Encoding");
            if (!lastCoding(fields.transferEncoding).equals("chunked")) return new Framing(false, -1, false, false);
            checkChunkedOnly(fields.transferEncoding);
            // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 message means faulty framing; close after it.
            return new Framing(true, -1, keepAlive && http11, false);
        }
        if (fields.contentLength != null) return new Framing(false, Tokens.contentLength(fields.contentLength), keepAlive, false);
        return new Framing(false, -1, false, false);
    }

    /**
     * The fields that decide the framing, gathered in one pass over the head: one per parser, so a
     * request costs no object for them.
     */
    static final class Fields {
        private int hosts;
        private String host;
        /** Every Content-Length value, checked to be the same (a list or repeated fields). */
        private String contentLength;
        private String transferEncoding;
        private boolean close;
        private boolean keepAliveToken;
        private boolean expectContinue;
        private String unsupportedExpectation;
        /** The last {@code Host} value found valid, kept across messages: the same string is not checked again. */
        private String checkedHost;

        /** Gathers the fields of {@code headers}, into fields that are clear. */
        void read(Headers headers) {
            for (int i = 0; i < headers.size(); i++) {
                String name = headers.name(i);
                String value = headers.value(i);
                switch (name.length()) {
                    case 4 -> {
                        if (name.equalsIgnoreCase("host")) {
                            hosts++;
                            host = value;
                        }
                    }
                    case 6 -> {
                        if (name.equalsIgnoreCase("expect")) expect(value);
                    }
                    case 10 -> {
                        if (name.equalsIgnoreCase("connection")) connection(value);
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
        }

        /** Forgets the message's fields, for the next one. */
        void clear() {
            hosts = 0;
            host = null;
            contentLength = null;
            transferEncoding = null;
            close = false;
            keepAliveToken = false;
            expectContinue = false;
            unsupportedExpectation = null;
        }

        boolean keepAlive(boolean http11) {
            return http11 ? !close : keepAliveToken && !close;
        }

        private void expect(String value) {
            if (value.equalsIgnoreCase("100-continue")) expectContinue = true;
            else if (unsupportedExpectation == null) unsupportedExpectation = value;
        }

        private void connection(String value) {
            for (String token : value.split(",")) {
                String t = token.trim();
                if (t.equalsIgnoreCase("close")) close = true;
                else if (t.equalsIgnoreCase("keep-alive")) keepAliveToken = true;
            }
        }
    }

    /** Repeated Content-Length fields (or a list) are accepted only when every value is the same. */
    private static String merge(String previous, String value) {
        String merged = previous;
        for (String part : value.split(",", -1)) {
            String v = part.trim();
            if (merged != null && !merged.equals(v)) throw new BadMessage("invalid Content-Length");
            merged = v;
        }
        return merged;
    }

    private static String lastCoding(String codings) {
        String[] all = codings.split(",");
        for (int i = all.length - 1; i >= 0; i--) {
            String c = all[i].trim();
            if (!c.isEmpty()) return c.toLowerCase(Locale.ROOT);
        }
        return "";
    }

    private static void checkChunkedOnly(String codings) {
        int chunked = 0;
        for (String coding : codings.split(",")) {
            String c = coding.trim().toLowerCase(Locale.ROOT);
            if (c.isEmpty()) continue;
            if (!c.equals("chunked")) throw new BadMessage(501, "unsupported transfer coding: " + c);
            chunked++;
        }
        if (chunked != 1) throw new BadMessage("invalid Transfer-Encoding");
    }
}
