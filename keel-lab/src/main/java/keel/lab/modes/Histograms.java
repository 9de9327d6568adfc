package keel.lab.modes;

import keel.lab.measure.Buckets;

import java.util.TreeMap;

/**
 * Quantiles of the interval between two scrapes of a cumulative histogram, as Prometheus's
 * {@code histogram_quantile} computes them: the modes scenario's names for {@link Buckets}, which
 * holds the math for every lab scenario.
 */
final class Histograms {
    private Histograms() {
    }

    /** Bucket by bucket {@code later - earlier}: the observations made between the two scrapes. */
    static TreeMap<Double, Double> delta(TreeMap<Double, Double> earlier, TreeMap<Double, Double> later) {
        return new TreeMap<>(Buckets.delta(earlier, later));
    }

    /**
     * The {@code q} quantile of cumulative buckets, interpolated linearly inside the bucket that holds
     * it (from 0 for the first bucket); the highest finite bound when it falls in {@code +Inf}; NaN
     * with no observations.
     */
    static double quantile(double q, TreeMap<Double, Double> cumulative) {
        return Buckets.quantile(q, cumulative);
    }
}
