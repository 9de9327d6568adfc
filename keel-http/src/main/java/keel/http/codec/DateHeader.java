package keel.http.codec;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/**
 * The {@code Date} field line (RFC 9110 §6.6.1), formatted once per second and shared by all threads.
 * A caller gives the time it already has on the {@link System#nanoTime()} scale (an event loop's last
 * clock read); the wall clock is read only when that time leaves the second the line was made for.
 */
final class DateHeader {
    /** The line of wall-clock second {@code second}, which ran from {@code fromNanos} on the nanoTime scale. */
    private record Cached(long second, long fromNanos, byte[] line) {
        boolean covers(long nanoTime) {
            long into = nanoTime - fromNanos;
            return into >= 0 && into < 1_000_000_000L;
        }
    }

    /** IMF-fixdate: always two-digit days, English names, GMT. */
    private static final DateTimeFormatter IMF_FIXDATE = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US);
    private static volatile Cached cached = new Cached(Long.MIN_VALUE, 0, new byte[0]);

    private DateHeader() {
    }

    /** The line for a response made at {@code nanoTime}. */
    static byte[] line(long nanoTime) {
        Cached current = cached;
        return current.covers(nanoTime) ? current.line() : refresh(nanoTime, current).line();
    }

    private static Cached refresh(long nanoTime, Cached current) {
        long millis = System.currentTimeMillis();
        long second = Math.floorDiv(millis, 1000);
        long fromNanos = nanoTime - Math.floorMod(millis, 1000) * 1_000_000L;
        byte[] line = second == current.second() ? current.line()
                : ("Date: " + IMF_FIXDATE.format(Instant.ofEpochSecond(second).atOffset(ZoneOffset.UTC)) + "\r\n").getBytes(ISO_8859_1);
        Cached fresh = new Cached(second, fromNanos, line);
        cached = fresh;
        return fresh;
    }
}
