package keel.http.accesslog;

import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.TimeUnit;

/**
 * An access line's time, ISO-8601 in UTC with milliseconds ({@code 2026-11-21T11:39:34.123Z}), from a
 * {@link System#nanoTime()} the line already has: the wall clock is read again only every 100 ms, the
 * date part is made once a second and the milliseconds' digits once a millisecond. Confined to one thread.
 */
final class LineClock {
    private static final DateTimeFormatter SECOND = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.");
    private static final long CALIBRATE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final byte[] text = new byte[24];
    private long second = Long.MIN_VALUE;
    private long millis = Long.MIN_VALUE;
    /** Wall-clock nanoseconds since the epoch minus {@link System#nanoTime()}, as of {@link #calibratedAt}. */
    private long offsetNanos;
    private long calibratedAt;
    private boolean calibrated;
    /** The {@link System#nanoTime()} span of the millisecond {@link #text} shows: no division while a line falls in it. */
    private long millisFrom;
    private long millisTo;

    /** The text of the time last {@link #advance advanced} to: 24 bytes, rewritten in place. */
    byte[] text() {
        return text;
    }

    /** Moves to {@code nanoTime}; true when its {@link #text} differs from the previous one. */
    boolean advance(long nanoTime) {
        if (calibrated && nanoTime - millisFrom >= 0 && nanoTime - millisTo < 0 && nanoTime - calibratedAt <= CALIBRATE_NANOS) return false;
        if (!calibrated || nanoTime - calibratedAt > CALIBRATE_NANOS) {
            calibrated = true;
            calibratedAt = nanoTime;
            offsetNanos = System.currentTimeMillis() * 1_000_000 - nanoTime;
        }
        long epochMillis = Math.floorDiv(nanoTime + offsetNanos, 1_000_000);
        millisFrom = epochMillis * 1_000_000 - offsetNanos;
        millisTo = millisFrom + 1_000_000;
        if (epochMillis == millis) return false;
        millis = epochMillis;
        long s = Math.floorDiv(epochMillis, 1000);
        if (s != second) {
            second = s;
            byte[] date = SECOND.format(LocalDateTime.ofEpochSecond(s, 0, ZoneOffset.UTC)).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(date, 0, text, 0, 20);
            text[23] = 'Z';
        }
        int ms = (int) Math.floorMod(epochMillis, 1000);
        text[20] = (byte) ('0' + ms / 100);
        text[21] = (byte) ('0' + ms / 10 % 10);
        text[22] = (byte) ('0' + ms % 10);
        return true;
    }
}
