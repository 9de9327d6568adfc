package keel.lab.modes;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * One {@code GET /metrics} answer (Prometheus text), parsed into samples, with the server's thread
 * count at the same moment.
 *
 * @param seconds seconds since the sampler started
 * @param threads live threads of the server's JVM (-1 when unknown)
 */
record Scrape(double seconds, List<Sample> samples, int threads) {

    /** {@code name{labels} value}. */
    record Sample(String name, Map<String, String> labels, double value) {
        String label(String key) {
            return labels.getOrDefault(key, "");
        }
    }

    /** Parses the Prometheus text format's sample lines; comments and blank lines are skipped. */
    static List<Sample> parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) continue;
            int brace = line.indexOf('{');
            int space = brace >= 0 ? line.indexOf(' ', line.lastIndexOf('}')) : line.indexOf(' ');
            if (space < 0) continue;
            String name = line.substring(0, brace >= 0 ? brace : space);
            Map<String, String> labels = brace >= 0 ? labels(line.substring(brace + 1, line.lastIndexOf('}'))) : Map.of();
            String value = line.substring(space + 1).trim().split(" ")[0];
            samples.add(new Sample(name, labels, parseValue(value)));
        }
        return samples;
    }

    /** The sum of every sample named {@code name} whose labels pass {@code filter}. */
    double sum(String name, Predicate<Sample> filter) {
        double total = 0;
        for (Sample sample : samples) {
            if (sample.name().equals(name) && filter.test(sample)) total += sample.value();
        }
        return total;
    }

    /** Cumulative bucket counts of histogram {@code name} by upper bound, summed over the samples that pass {@code filter}. */
    TreeMap<Double, Double> buckets(String name, Predicate<Sample> filter) {
        TreeMap<Double, Double> buckets = new TreeMap<>();
        for (Sample sample : samples) {
            if (sample.name().equals(name + "_bucket") && filter.test(sample)) {
                buckets.merge(parseValue(sample.label("le")), sample.value(), Double::sum);
            }
        }
        return buckets;
    }

    private static Map<String, String> labels(String text) {
        Map<String, String> labels = new TreeMap<>();
        int i = 0;
        while (i < text.length()) {
            int equals = text.indexOf('=', i);
            if (equals < 0 || equals + 1 >= text.length() || text.charAt(equals + 1) != '"') break;
            StringBuilder value = new StringBuilder();
            int j = equals + 2;
            for (; j < text.length() && text.charAt(j) != '"'; j++) {
                char c = text.charAt(j);
                if (c == '\\' && j + 1 < text.length()) {
                    char escaped = text.charAt(++j);
                    value.append(escaped == 'n' ? '\n' : escaped);
                } else {
                    value.append(c);
                }
            }
            labels.put(text.substring(i, equals).trim(), value.toString());
            i = j + 1;
            while (i < text.length() && (text.charAt(i) == ',' || text.charAt(i) == ' ')) i++;
        }
        return labels;
    }

    private static double parseValue(String text) {
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(text);
        };
    }
}
