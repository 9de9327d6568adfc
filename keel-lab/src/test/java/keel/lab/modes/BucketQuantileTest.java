package keel.lab.modes;

import keel.lab.measure.Buckets;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class BucketQuantileTest {

    private static TreeMap<Double, Double> buckets(double... boundAndCount) {
        TreeMap<Double, Double> buckets = new TreeMap<>();
        for (int i = 0; i < boundAndCount.length; i += 2) buckets.put(boundAndCount[i], boundAndCount[i + 1]);
        return buckets;
    }

    @Test
    void interpolatesInsideTheBucketThatHoldsTheRank() {
        // 10 observations ≤ 1, 30 in (1, 2], 60 in (2, 5]: rank 50 is the 10th of the 60 in (2, 5]
        TreeMap<Double, Double> cumulative = buckets(1, 10, 2, 40, 5, 100, Double.POSITIVE_INFINITY, 100);

        assertThat(Buckets.quantile(0.5, cumulative)).isCloseTo(2 + 3 * (50 - 40) / 60.0, within(1e-9));
        assertThat(Buckets.quantile(0.05, cumulative)).isCloseTo(0.5, within(1e-9));
        assertThat(Buckets.quantile(0.4, cumulative)).isCloseTo(2.0, within(1e-9));
        assertThat(Buckets.quantile(1.0, cumulative)).isCloseTo(5.0, within(1e-9));
    }

    @Test
    void aRankInTheInfiniteBucketAnswersTheHighestFiniteBound() {
        assertThat(Buckets.quantile(0.99, buckets(1, 10, 2, 20, Double.POSITIVE_INFINITY, 100))).isEqualTo(2.0);
    }

    @Test
    void noObservationsHaveNoQuantile() {
        assertThat(Buckets.quantile(0.5, buckets(1, 0, Double.POSITIVE_INFINITY, 0))).isNaN();
        assertThat(Buckets.quantile(0.5, new TreeMap<>())).isNaN();
    }

    @Test
    void deltaKeepsTheObservationsBetweenTwoScrapes() {
        TreeMap<Double, Double> earlier = buckets(1, 5, 2, 7, 5, 7, Double.POSITIVE_INFINITY, 7);
        TreeMap<Double, Double> later = buckets(1, 8, 2, 17, 5, 19, Double.POSITIVE_INFINITY, 20);

        assertThat(Buckets.delta(earlier, later)).isEqualTo(Map.of(1.0, 3.0, 2.0, 10.0, 5.0, 12.0, Double.POSITIVE_INFINITY, 13.0));
    }
}
