package keel.http.codec;

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
    private record Cached(long second, long fromNanos, byte[] line) {
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
        return current.covers(nanoTime) ? current.line() : refresh(nanoTime, current).line();
    }

    private static Cached refresh(long nanoTime, Cached current) {
        long millis = System.currentTimeMillis();
        long second = Math.floorDiv(millis, 1000);
        long fromNanos = nanoTime - Math.floorMod(millis, 1000) * 1_000_000L;
        byte[] line = second == current.second() ? current.line() : format(second);
        Cached fresh = new Cached(second, fromNanos, line);
        cached = fresh;
        return fresh;
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
