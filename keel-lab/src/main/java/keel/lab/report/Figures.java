package keel.lab.report;

import java.util.Arrays;
import java.util.Locale;

/**
 * How the lab prints a figure: a number rounded to what a noisy machine can tell apart, and a figure
 * measured several times as its median with the range ("52.1 (50.3–54.0)").
 */
public final class Figures {
    private Figures() {
    }

    /** A cell of a table: the text a reader sees and the number behind it (NaN when there is none). */
    public record Cell(String text, double value) {
        public static Cell text(String text) {
            return new Cell(text, Double.NaN);
        }

        public static Cell number(double value) {
            return new Cell(format(value), value);
        }

        /** The median of {@code values} with their range when there is more than one; NaNs are left out. */
        public static Cell spread(double... values) {
            double[] present = Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
            if (present.length == 0) return new Cell("–", Double.NaN);
            double median = median(present);
            if (present.length == 1 || present[0] == present[present.length - 1]) return new Cell(format(median), median);
            return new Cell(format(median) + " (" + format(present[0]) + "–" + format(present[present.length - 1]) + ")", median);
        }
    }

    /** 3 significant figures at most, no exponent: 4013 → "4013", 52.14 → "52.1", 0.0312 → "0.031"; NaN → "–". */
    public static String format(double value) {
        if (Double.isNaN(value)) return "–";
        if (Double.isInfinite(value)) return value > 0 ? "∞" : "-∞";
        double magnitude = Math.abs(value);
        if (magnitude >= 100 || value == Math.rint(value)) return String.format(Locale.ROOT, "%.0f", value);
        if (magnitude >= 10) return String.format(Locale.ROOT, "%.1f", value);
        if (magnitude >= 1) return String.format(Locale.ROOT, "%.2f", value);
        return String.format(Locale.ROOT, "%.3f", value);
    }

    /** The median of sorted values (the mean of the middle two for an even count). */
    public static double median(double[] sorted) {
        int n = sorted.length;
        if (n == 0) return Double.NaN;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
