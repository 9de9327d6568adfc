package keel.http.accesslog;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** An access line's time: formatted again exactly when the millisecond changes, near the wall clock. */
class LineClockTest {
    @Test
    void theTextChangesOnceAMillisecondByOneMillisecond() {
        LineClock clock = new LineClock();
        long start = System.nanoTime();
        assertThat(clock.advance(start)).isTrue();
        Instant first = Instant.parse(text(clock));
        assertThat(Duration.between(first, Instant.now()).abs()).isLessThan(Duration.ofSeconds(1));
        Instant previous = first;
        int changes = 0;
        for (int step = 1; step <= 9_000; step++) { // 90 ms in steps of 10 µs, within one calibration
            boolean changed = clock.advance(start + step * 10_000L);
            Instant now = Instant.parse(text(clock));
            assertThat(changed).as("step %d", step).isEqualTo(!now.equals(previous));
            if (changed) {
                assertThat(Duration.between(previous, now)).as("step %d", step).isEqualTo(Duration.ofMillis(1));
                changes++;
            }
            previous = now;
        }
        assertThat(changes).isBetween(89, 90);
        assertThat(text(clock)).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
    }

    private static String text(LineClock clock) {
        return new String(clock.text(), StandardCharsets.US_ASCII);
    }
}
