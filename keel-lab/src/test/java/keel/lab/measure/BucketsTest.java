package keel.lab.measure;

import org.junit.jupiter.api.Test;

import java.util.NavigableMap;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class BucketsTest {
    /** 10 observations ≤ 1 ms, 40 in (1, 5], 40 in (5, 10], 10 above 10 ms. */
    private static NavigableMap<Double, Double> buckets() {
        NavigableMap<Double, Double> b = new TreeMap<>();
        b.put(0.001, 10.0);
        b.put(0.005, 50.0);
        b.put(0.01, 90.0);
        b.put(Double.POSITIVE_INFINITY, 100.0);
        return b;
    }

    @Test
    void interpolatesInsideTheBucketTheRankFallsIn() {
        assertThat(Buckets.quantile(0.5, buckets())).isCloseTo(0.005, within(1e-12));
        assertThat(Buckets.quantile(0.3, buckets())).isCloseTo(0.003, within(1e-12));
        assertThat(Buckets.quantile(0.7, buckets())).isCloseTo(0.0075, within(1e-12));
        assertThat(Buckets.quantile(0.05, buckets())).isCloseTo(0.0005, within(1e-12));
    }

    @Test
    void aRankInTheInfBucketAnswersTheHighestFiniteBound() {
        assertThat(Buckets.quantile(0.99, buckets())).isEqualTo(0.01);
        assertThat(Buckets.maxBound(buckets())).isEqualTo(0.01);
    }

    @Test
    void maxBoundIsTheUpperEdgeOfTheHighestBucketThatHoldsAnything() {
        NavigableMap<Double, Double> b = buckets();
        b.put(0.01, 100.0);
        assertThat(Buckets.maxBound(b)).isEqualTo(0.01);
        b.put(0.005, 100.0);
        assertThat(Buckets.maxBound(b)).isEqualTo(0.005);
    }

    @Test
    void deltaIsWhatGrewBetweenTwoScrapes() {
        NavigableMap<Double, Double> before = new TreeMap<>();
        before.put(0.001, 5.0);
        before.put(0.005, 5.0);
        before.put(0.01, 5.0);
        before.put(Double.POSITIVE_INFINITY, 5.0);
        NavigableMap<Double, Double> grown = Buckets.delta(before, buckets());
        assertThat(grown).containsExactly(
                org.assertj.core.api.Assertions.entry(0.001, 5.0), org.assertj.core.api.Assertions.entry(0.005, 45.0),
                org.assertj.core.api.Assertions.entry(0.01, 85.0), org.assertj.core.api.Assertions.entry(Double.POSITIVE_INFINITY, 95.0));
        assertThat(Buckets.count(grown)).isEqualTo(95.0);
        assertThat(Buckets.delta(null, buckets())).isEqualTo(buckets());
    }

    @Test
    void emptyBucketsHaveNoQuantile() {
        assertThat(Buckets.quantile(0.5, new TreeMap<>())).isNaN();
        assertThat(Buckets.maxBound(new TreeMap<>())).isNaN();
    }
}
