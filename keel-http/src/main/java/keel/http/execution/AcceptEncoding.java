package keel.http.execution;

import keel.http.Headers;

import java.util.Locale;

/**
 * Whether a request's {@code Accept-Encoding} (RFC 9110 §12.5.3) lets the server answer with gzip.
 * No field means no coding is wanted (servers do not compress for clients that did not ask); an
 * empty one asks for identity only. {@code gzip;q=0} refuses gzip, {@code *} stands for every coding
 * not listed, and an {@code identity} weighted above gzip (listed, or through {@code *}) keeps the
 * body as it is. {@code x-gzip} is gzip (RFC 9110 §8.4.1.3). An element with a malformed weight is
 * ignored.
 */
final class AcceptEncoding {
    private static final int UNLISTED = -1;

    private AcceptEncoding() {
    }

    /** True when the client accepts gzip at least as much as the body as it is. */
    static boolean prefersGzip(Headers headers) {
        int gzip = UNLISTED;
        int any = UNLISTED;
        int identity = UNLISTED;
        boolean present = false;
        for (int i = 0; i < headers.size(); i++) {
            if (!headers.name(i).equalsIgnoreCase("Accept-Encoding")) continue;
            present = true;
            for (String element : headers.value(i).split(",")) {
                int semicolon = element.indexOf(';');
                String coding = (semicolon < 0 ? element : element.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
                int weight = semicolon < 0 ? 1000 : weight(element.substring(semicolon + 1));
                if (coding.isEmpty() || weight == UNLISTED) continue;
                switch (coding) {
                    case "gzip", "x-gzip" -> gzip = Math.max(gzip, weight);
                    case "*" -> any = weight;
                    case "identity" -> identity = weight;
                    default -> { }
                }
            }
        }
        if (!present) return false;
        int gzipWeight = gzip != UNLISTED ? gzip : any;
        int identityWeight = identity != UNLISTED ? identity : Math.max(any, 0);
        return gzipWeight > 0 && gzipWeight >= identityWeight;
    }

    /**
     * The weight in thousandths from an element's parameters ({@code q=0.5} gives 500), 1000 without
     * one, {@link #UNLISTED} when it is malformed: {@code qvalue = ("0" ["." 0*3DIGIT]) / ("1" ["." 0*3("0")])}.
     */
    static int weight(String parameters) {
        int weight = 1000;
        for (String parameter : parameters.split(";")) {
            String p = parameter.strip();
            if (p.isEmpty()) continue;
            if (p.length() < 2 || (p.charAt(0) != 'q' && p.charAt(0) != 'Q') || p.charAt(1) != '=') continue;
            weight = qvalue(p.substring(2).strip());
            if (weight == UNLISTED) return UNLISTED;
        }
        return weight;
    }

    private static int qvalue(String text) {
        if (text.isEmpty() || text.length() > 5 || (text.charAt(0) != '0' && text.charAt(0) != '1')) return UNLISTED;
        int value = (text.charAt(0) - '0') * 1000;
        if (text.length() == 1) return value;
        if (text.charAt(1) != '.') return UNLISTED;
        int scale = 100;
        for (int i = 2; i < text.length(); i++, scale /= 10) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') return UNLISTED;
            value += (c - '0') * scale;
        }
        return value > 1000 ? UNLISTED : value;
    }
}
