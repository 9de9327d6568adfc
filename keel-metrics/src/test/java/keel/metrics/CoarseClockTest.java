package keel.metrics;

import io.micrometer.core.instrument.distribution.pause.NoPauseDetector;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The registry reads no clock a request does not need: a coarse wall time and no pause detector. */
class CoarseClockTest {

    @Test
    void wallTimeIsNeverAheadOfTheSystemClockNorFarBehindIt() {
        for (int i = 0; i < 1_000; i++) {
            long before = System.currentTimeMillis();
            long coarse = CoarseClock.INSTANCE.wallTime();
            long after = System.currentTimeMillis();
            assertThat(coarse).isLessThanOrEqualTo(after);
            // A tick is 100 ms; a second leaves room for a busy machine that delays the ticking thread.
            assertThat(coarse).isGreaterThan(before - 1_000);
        }
    }

    @Test
    void monotonicTimeIsTheSystemsNanoTime() {
        long before = System.nanoTime();
        long monotonic = CoarseClock.INSTANCE.monotonicTime();
        assertThat(monotonic).isBetween(before, System.nanoTime());
    }

    @Test
    void theServersRegistryRunsOnThatClockWithoutAPauseDetector() {
        try (KeelMetrics metrics = new KeelMetrics()) {
            assertThat(metrics.registry().config().clock()).isSameAs(CoarseClock.INSTANCE);
            assertThat(metrics.registry().config().pauseDetector()).isInstanceOf(NoPauseDetector.class);
        }
    }
}
