package keel.http.server.exchange;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The minimum body rate on explicit times: 100 bytes/s (each byte buys 10 ms) with a window of 1 s. */
class BodyRateTest {
    private static final long MS = 1_000_000L;
    private static final long STALL = 60_000 * MS;

    private static BodyRate rate(int bytesPerSecond) {
        return new BodyRate(new ServerContext.Timeouts(Duration.ofSeconds(10), Duration.ofMinutes(1), Duration.ofSeconds(30), Duration.ofMinutes(1),
                bytesPerSecond, Duration.ofSeconds(1), Duration.ofSeconds(2)));
    }

    @Test
    void aBodyStartsWithTheWholeWindow() {
        BodyRate rate = rate(100);
        rate.start(0);
        assertThat(rate.nanosLeft(0, STALL)).isEqualTo(1_000 * MS);
        assertThat(rate.isTooSlow(999 * MS)).isFalse();
        assertThat(rate.isTooSlow(1_000 * MS)).isTrue();
    }

    @Test
    void aTrickleFallsBehindTheRate() {
        BodyRate rate = rate(100);
        rate.start(0);
        long now = 0;
        for (int i = 0; i < 100 && !rate.isTooSlow(now); i++) {
            now += 50 * MS; // one byte per 50 ms: 20 bytes/s
            if (!rate.isTooSlow(now)) rate.onBytes(now, 1);
        }
        // Each byte buys 10 ms of the 50 it took: the 1 s of credit lasts 25 bytes.
        assertThat(now).isEqualTo(1_250 * MS);
        assertThat(rate.isTooSlow(now)).isTrue();
    }

    @Test
    void aBodyAtTheRateNeverFallsBehind() {
        BodyRate rate = rate(100);
        rate.start(0);
        for (long now = 100 * MS; now <= 60_000 * MS; now += 100 * MS) {
            assertThat(rate.isTooSlow(now)).isFalse();
            rate.onBytes(now, 10); // 100 bytes/s exactly
        }
    }

    @Test
    void creditSavedBySendingFasterIsCappedAtTheWindow() {
        BodyRate rate = rate(100);
        rate.start(0);
        rate.onBytes(10 * MS, 1_000_000); // far ahead of the rate
        assertThat(rate.nanosLeft(10 * MS, STALL)).as("at most the window ahead").isEqualTo(1_000 * MS);
        assertThat(rate.isTooSlow(1_010 * MS)).as("a pause as long as the window is too slow").isTrue();
    }

    @Test
    void theStallTimeoutBoundsTheWaitWhenItIsShorter() {
        BodyRate rate = rate(100);
        rate.start(0);
        assertThat(rate.nanosLeft(0, 300 * MS)).isEqualTo(300 * MS);
        assertThat(rate.isTooSlow(300 * MS)).as("the stall's expiry, not the rate's").isFalse();
    }

    @Test
    void zeroTurnsTheRateOff() {
        BodyRate rate = rate(0);
        rate.start(0);
        assertThat(rate.nanosLeft(0, STALL)).isEqualTo(STALL);
        assertThat(rate.isTooSlow(Long.MAX_VALUE / 2)).isFalse();
    }

    @Test
    void theAnswerNamesTheRate() {
        assertThat(new String(rate(100).tooSlow().body(), StandardCharsets.UTF_8)).isEqualTo("request body slower than 100 bytes/s\n");
        assertThat(rate(100).tooSlow().status()).isEqualTo(408);
    }
}
