package keel.http.codec;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

import static java.nio.charset.StandardCharsets.US_ASCII;

/**
 * The {@code Date} field line (RFC 9110 §6.6.1), formatted once per second and shared by all threads.
 * A caller gives the time it already has on the {@link System#nanoTime()} scale (an event loop's last
 * clock read); the wall clock is read only when that time leaves the second the line was made for.
 */
final class DateHeader {
    /** The line of wall-clock second {@code second}, which ran from {@code fromNanos} on the nanoTime scale. */
    record Cached(long second, long fromNanos, byte[] line) {
        boolean covers(long nanoTime) {
            long into = nanoTime - fromNanos;
            return into >= 0 && into < 1_000_000_000L;
        }
    }

    /**
     * IMF-fixdate's names, always English: written by hand, because a {@code DateTimeFormatter} with
     * names loads the JDK's locale data at its first use, about 30 ms of the start.
     */
    private static final String[] DAYS = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    private static volatile Cached cached = new Cached(Long.MIN_VALUE, 0, new byte[0]);

    private DateHeader() {
    }

    /** The line for a response made at {@code nanoTime}. */
    static byte[] line(long nanoTime) {
        Cached current = cached;
        if (current.covers(nanoTime)) return current.line();
        Cached fresh = at(nanoTime, Instant.now(), current);
        cached = fresh;
        return fresh.line();
    }

    /**
     * The line of wall-clock time {@code now}'s second, placed on the nanoTime scale by {@code nanoTime},
     * a time read at or before {@code now}: its second starts there no later than it did, so the line
     * is never served past its second. (Placed from {@code currentTimeMillis}, whose millisecond drops
     * the rest, it started up to a millisecond late and was served that long into the next second.)
     */
    static Cached at(long nanoTime, Instant now, Cached current) {
        long second = now.getEpochSecond();
        byte[] line = second == current.second() ? current.line() : format(second);
        return new Cached(second, nanoTime - now.getNano(), line);
    }

    /** {@code Date: Sun, 06 Nov 1994 08:49:37 GMT} and CRLF, for wall-clock second {@code second} (from the epoch). */
    static byte[] format(long second) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(second, 0, ZoneOffset.UTC);
        StringBuilder line = new StringBuilder(37).append("Date: ").append(DAYS[t.getDayOfWeek().ordinal()]).append(", ");
        twoDigits(line, t.getDayOfMonth()).append(' ').append(MONTHS[t.getMonthValue() - 1]).append(' ').append(t.getYear()).append(' ');
        twoDigits(line, t.getHour()).append(':');
        twoDigits(line, t.getMinute()).append(':');
        return twoDigits(line, t.getSecond()).append(" GMT\r\n").toString().getBytes(US_ASCII);
    }

    private static StringBuilder twoDigits(StringBuilder line, int value) {
        return line.append((char) ('0' + value / 10)).append((char) ('0' + value % 10));
    }
}
