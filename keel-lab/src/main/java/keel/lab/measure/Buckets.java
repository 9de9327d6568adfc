package keel.lab.measure;

import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Quantiles from cumulative histogram buckets, as Prometheus' {@code histogram_quantile} computes
 * them: find the bucket the rank falls in and interpolate linearly inside it (the first bucket starts
 * at 0; a rank in the +Inf bucket answers the highest finite bound). Taking the difference of two
 * scrapes first gives the quantile of what happened between them.
 */
public final class Buckets {
    private Buckets() {
    }

    /** {@code after - before}, bound by bound (a bound missing before counts from 0). */
    public static NavigableMap<Double, Double> delta(NavigableMap<Double, Double> before, NavigableMap<Double, Double> after) {
        NavigableMap<Double, Double> grown = new TreeMap<>();
        for (Map.Entry<Double, Double> bucket : after.entrySet()) {
            grown.put(bucket.getKey(), bucket.getValue() - (before == null ? 0 : before.getOrDefault(bucket.getKey(), 0.0)));
        }
        return grown;
    }

    /** The total count: the +Inf bucket's (or the last bucket's), NaN-free. */
    public static double count(NavigableMap<Double, Double> cumulative) {
        return cumulative.isEmpty() ? 0 : cumulative.lastEntry().getValue();
    }

    /** The {@code q} quantile (0..1) of cumulative {@code buckets}, in the buckets' unit; NaN when empty. */
    public static double quantile(double q, NavigableMap<Double, Double> buckets) {
        double total = count(buckets);
        if (total <= 0) return Double.NaN;
        double rank = q * total;
        double lower = 0;
        double below = 0;
        for (Map.Entry<Double, Double> bucket : buckets.entrySet()) {
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

    /**
     * The upper bound of the highest bucket that holds an observation (the +Inf bucket answers the
     * highest finite bound: "at least that"); NaN when empty.
     */
    public static double maxBound(NavigableMap<Double, Double> buckets) {
        double highest = Double.NaN;
        double below = 0;
        double lastFinite = 0;
        for (Map.Entry<Double, Double> bucket : buckets.entrySet()) {
            if (bucket.getValue() > below) highest = Double.isInfinite(bucket.getKey()) ? lastFinite : bucket.getKey();
            if (!Double.isInfinite(bucket.getKey())) lastFinite = bucket.getKey();
            below = bucket.getValue();
        }
        return highest;
    }
}
