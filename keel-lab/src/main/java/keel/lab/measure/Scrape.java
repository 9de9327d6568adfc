package keel.lab.measure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One read of a Prometheus text page ({@code GET /metrics}): its samples and when it was taken.
 * Lenient on purpose (lines it cannot read are skipped): the strict check of the format is
 * keel-metrics' own test.
 *
 * @param nanos   {@link System#nanoTime()} when the answer arrived
 * @param samples every sample line, in page order
 */
public record Scrape(long nanos, List<Sample> samples) {
    private static final Pattern LINE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)(?:\\s+-?\\d+)?");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

    /** A sample: metric name, labels, value. */
    public record Sample(String name, Map<String, String> labels, double value) {
        public String label(String name) {
            return labels.getOrDefault(name, "");
        }
    }

    public static Scrape parse(long nanos, String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) continue;
            Matcher m = LINE.matcher(line.trim());
            if (!m.matches()) continue;
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher label = LABEL.matcher(m.group(2));
                while (label.find()) labels.put(label.group(1), label.group(2).replace("\\\"", "\"").replace("\\n", "\n").replace("\\\\", "\\"));
            }
            samples.add(new Sample(m.group(1), Map.copyOf(labels), number(m.group(3))));
        }
        return new Scrape(nanos, List.copyOf(samples));
    }

    /** The sum of every sample called {@code name} whose labels pass {@code filter}. */
    public double sum(String name, Predicate<Sample> filter) {
        return samples.stream().filter(s -> s.name().equals(name) && filter.test(s)).mapToDouble(Sample::value).sum();
    }

    /**
     * The cumulative buckets of histogram {@code family} ({@code family_bucket} samples passing
     * {@code filter}), summed per value of label {@code groupBy} (all in one group when it is null):
     * group → upper bound ({@code le}, +Inf last) → count.
     */
    public Map<String, NavigableMap<Double, Double>> buckets(String family, Predicate<Sample> filter, String groupBy) {
        Map<String, NavigableMap<Double, Double>> groups = new TreeMap<>();
        for (Sample s : samples) {
            if (!s.name().equals(family + "_bucket") || !filter.test(s) || !s.labels().containsKey("le")) continue;
            String group = groupBy == null ? "" : s.label(groupBy);
            groups.computeIfAbsent(group, g -> new TreeMap<>()).merge(number(s.label("le")), s.value(), Double::sum);
        }
        return groups;
    }

    static double number(String text) {
        return switch (text) {
            case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> {
                try {
                    yield Double.parseDouble(text);
                } catch (NumberFormatException e) {
                    yield Double.NaN;
                }
            }
        };
    }
}
