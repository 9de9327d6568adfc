package keel.http.codec;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

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
