package keel.http.codec;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code Date} line follows the time the caller gives, and reads the wall clock only to start a new second. */
class DateHeaderTest {

    private static ZonedDateTime dateOf(byte[] line) {
        String text = new String(line, StandardCharsets.ISO_8859_1);
        assertThat(text).startsWith("Date: ").endsWith(" GMT\r\n");
        return ZonedDateTime.parse(text.substring(6, text.length() - 2), DateTimeFormatter.RFC_1123_DATE_TIME);
    }

    @Test
    void theLineIsTheWallClocksSecondInImfFixdate() {
        ZonedDateTime before = ZonedDateTime.now().truncatedTo(ChronoUnit.SECONDS);
        ZonedDateTime date = dateOf(DateHeader.line(System.nanoTime()));
        ZonedDateTime after = ZonedDateTime.now();
        assertThat(date.toInstant()).isBetween(before.toInstant(), after.toInstant());
    }

    /** A second placed from a wall-clock reading within its millisecond ends where the second does, not at that millisecond's end. */
    @Test
    void aLineEndsWithItsSecond() {
        long read = 7_000_000_000L;
        Instant now = Instant.parse("2026-11-29T17:06:14.999600400Z"); // 399 600 ns before 17:06:15
        DateHeader.Cached line = DateHeader.at(read, now, new DateHeader.Cached(Long.MIN_VALUE, 0, new byte[0]));
        assertThat(dateOf(line.line()).toInstant()).isEqualTo(Instant.parse("2026-11-29T17:06:14Z"));
        assertThat(line.covers(read + 399_599)).isTrue();
        assertThat(line.covers(read + 399_600)).as("17:06:15 has begun").isFalse();
        assertThat(line.covers(read - 999_600_400)).as("17:06:14 began there").isTrue();
        assertThat(line.covers(read - 999_600_401)).isFalse();
    }

    /** Written by hand, the line is what the JDK's formatter makes of the same second, from 1970 to 9999. */
    @Test
    void theLineIsWhatTheJdksFormatterWrites() {
        DateTimeFormatter imfFixdate = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US);
        SplittableRandom random = new SplittableRandom(7);
        long last = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
        long[] seconds = new long[10_000];
        for (int i = 0; i < seconds.length; i++) seconds[i] = random.nextLong(last + 1);
        seconds[0] = 0;
        seconds[1] = last;
        seconds[2] = Instant.parse("2024-02-29T09:05:07Z").getEpochSecond(); // a leap day, single-digit fields
        for (long second : seconds) {
            String expected = "Date: " + imfFixdate.format(Instant.ofEpochSecond(second).atOffset(ZoneOffset.UTC)) + "\r\n";
            assertThat(new String(DateHeader.format(second), StandardCharsets.US_ASCII)).as("second %d", second).isEqualTo(expected);
        }
    }

    @Test
    void aTimeWithinTheLinesSecondGetsTheSameLineWithoutFormattingAgain() {
        long now = System.nanoTime();
        byte[] line = DateHeader.line(now);
        assertThat(DateHeader.line(now)).isSameAs(line);
        assertThat(DateHeader.line(now + 1)).isSameAs(line);
    }

    /** A caller's time outside the line's second makes it read the wall clock: the date is never computed ahead from the caller's clock. */
    @Test
    void aTimeOutsideTheLinesSecondTakesTheWallClocksSecond() {
        ZonedDateTime before = ZonedDateTime.now().truncatedTo(ChronoUnit.SECONDS);
        ZonedDateTime far = dateOf(DateHeader.line(System.nanoTime() + 5_000_000_000L));
        ZonedDateTime back = dateOf(DateHeader.line(System.nanoTime() - 5_000_000_000L));
        ZonedDateTime after = ZonedDateTime.now();
        assertThat(far.toInstant()).isBetween(before.toInstant(), after.toInstant());
        assertThat(back.toInstant()).isBetween(before.toInstant(), after.toInstant());
    }
}
