package keel.http.router;

import keel.http.HttpStatusException;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** RFC 3986 percent-decoding of a path segment ('+' stays '+', unlike form decoding). */
final class PercentDecoder {
    private PercentDecoder() {
    }

    static String decode(String segment) {
        if (segment.indexOf('%') < 0) return segment;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c != '%') {
                bytes.write(c);
                continue;
            }
            int high = i + 2 < segment.length() ? Character.digit(segment.charAt(i + 1), 16) : -1;
            int low = high < 0 ? -1 : Character.digit(segment.charAt(i + 2), 16);
            if (low < 0) throw new HttpStatusException(400, "malformed percent-encoding in path");
            bytes.write(high << 4 | low);
            i += 2;
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
