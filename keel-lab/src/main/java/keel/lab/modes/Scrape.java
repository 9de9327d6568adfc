package keel.lab.modes;

import keel.lab.measure.MetricsSampler;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * One {@code GET /metrics} answer, parsed by the lab's {@link keel.lab.measure.Scrape}, placed on the
 * run's time line, with the server's thread count at the same moment.
 *
 * @param seconds seconds since the sampler started
 * @param threads live threads of the server's JVM (-1 when unknown)
 */
record Scrape(double seconds, List<keel.lab.measure.Scrape.Sample> samples, int threads) {

    /** Parses the Prometheus text format's sample lines; comments and blank lines are skipped. */
    static List<keel.lab.measure.Scrape.Sample> parse(String text) {
        return keel.lab.measure.Scrape.parse(0, text).samples();
    }

    /** The sampler's successful reads, timed from its first one. */
    static List<Scrape> of(List<MetricsSampler.Point> points) {
        List<Scrape> scrapes = new ArrayList<>();
        long start = points.isEmpty() ? 0 : points.getFirst().nanos();
        for (MetricsSampler.Point point : points) {
            if (point.scrape() != null) scrapes.add(new Scrape((point.nanos() - start) / 1e9, point.scrape().samples(), point.threads()));
        }
        return scrapes;
    }

    /** The sum of every sample named {@code name} whose labels pass {@code filter}. */
    double sum(String name, Predicate<keel.lab.measure.Scrape.Sample> filter) {
        return new keel.lab.measure.Scrape(0, samples).sum(name, filter);
    }

    /** Cumulative bucket counts of histogram {@code name} by upper bound, summed over the samples that pass {@code filter}. */
    NavigableMap<Double, Double> buckets(String name, Predicate<keel.lab.measure.Scrape.Sample> filter) {
        return new keel.lab.measure.Scrape(0, samples).buckets(name, filter, null).getOrDefault("", new TreeMap<>());
    }
}
