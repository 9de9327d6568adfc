package keel.http.codec;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/** The {@code Date} field line (RFC 9110 §6.6.1), formatted once per second and shared by all threads. */
final class DateHeader {
    private record Cached(long second, byte[] line) {
    }

    /** IMF-fixdate: always two-digit days, English names, GMT. */
    private static final DateTimeFormatter IMF_FIXDATE = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US);
    private static volatile Cached cached = new Cached(-1, new byte[0]);

    private DateHeader() {
    }

    static byte[] line() {
        long second = System.currentTimeMillis() / 1000;
        Cached current = cached;
        if (current.second() != second) {
            String date = IMF_FIXDATE.format(Instant.ofEpochSecond(second).atOffset(ZoneOffset.UTC));
            current = new Cached(second, ("Date: " + date + "\r\n").getBytes(ISO_8859_1));
            cached = current;
        }
        return current.line();
    }
}
