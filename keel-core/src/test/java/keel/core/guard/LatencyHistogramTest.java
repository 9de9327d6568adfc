package keel.core.guard;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class LatencyHistogramTest {
    @Test
    void bucketsCoverEveryValueInOrderWithBoundsThatContainIt() {
        int previous = -1;
        for (long v = 0; v < 5_000_000; v = v < 100 ? v + 1 : v + v / 7) {
            int index = LatencyHistogram.index(v);
            assertThat(index).isGreaterThanOrEqualTo(previous);
            assertThat(LatencyHistogram.lowerBound(index)).isLessThanOrEqualTo(v);
            assertThat(LatencyHistogram.lowerBound(index + 1)).isGreaterThan(v);
            previous = index;
        }
    }

    @Test
    void percentilesAreWithinTheBucketPrecision() {
        LatencyHistogram histogram = new LatencyHistogram();
        for (int ms = 1; ms <= 1000; ms++) histogram.record(ms, TimeUnit.MILLISECONDS);
        LatencyHistogram.Snapshot snapshot = histogram.snapshot();
        assertThat(snapshot.count()).isEqualTo(1000);
        assertThat(snapshot.maxMicros()).isEqualTo(1_000_000);
        assertThat((double) snapshot.p50Micros()).isCloseTo(500_000, within(500_000 * 0.07));
        assertThat((double) snapshot.p99Micros()).isCloseTo(990_000, within(990_000 * 0.07));
        assertThat(snapshot.sumMicros()).isEqualTo(500_500_000L);
    }

    @Test
    void anEmptyHistogramAnswersZero() {
        assertThat(new LatencyHistogram().snapshot()).isEqualTo(new LatencyHistogram.Snapshot(0, 0, 0, 0, 0, 0, 0));
    }
}
