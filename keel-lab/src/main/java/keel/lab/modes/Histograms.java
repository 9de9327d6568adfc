package keel.lab.modes;

import java.util.Map;
import java.util.TreeMap;

/** Quantiles of the interval between two scrapes of a cumulative histogram, as Prometheus's {@code histogram_quantile} computes them. */
final class Histograms {
    private Histograms() {
    }

    /** Bucket by bucket {@code later - earlier}: the observations made between the two scrapes. */
    static TreeMap<Double, Double> delta(TreeMap<Double, Double> earlier, TreeMap<Double, Double> later) {
        TreeMap<Double, Double> delta = new TreeMap<>();
        later.forEach((le, count) -> delta.put(le, count - earlier.getOrDefault(le, 0.0)));
        return delta;
    }

    /**
     * The {@code q} quantile of cumulative buckets, interpolated linearly inside the bucket that holds
     * it (from 0 for the first bucket); the highest finite bound when it falls in {@code +Inf}; NaN
     * with no observations.
     */
    static double quantile(double q, TreeMap<Double, Double> cumulative) {
        if (cumulative.isEmpty()) return Double.NaN;
        double total = cumulative.lastEntry().getValue();
        if (total <= 0) return Double.NaN;
        double rank = q * total;
        double lower = 0;
        double below = 0;
        for (Map.Entry<Double, Double> bucket : cumulative.entrySet()) {
            double upper = bucket.getKey();
            double count = bucket.getValue();
            if (count >= rank) {
                if (Double.isInfinite(upper)) return lower;
                if (count == below) return upper;
                return lower + (upper - lower) * (rank - below) / (count - below);
            }
            lower = upper;
            below = count;
        }
        return lower;
    }
}
