package keel.lab.modes;

import keel.lab.measure.Buckets;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * What a run's scrapes say over time, one point per interval between consecutive scrapes, at the
 * interval's end, in seconds since the scrape before the route's first request.
 */
final class Timeline {
    static final String REQUESTS = "keel_http_server_requests_seconds";
    static final String LAG = "keel_event_loop_lag_seconds";
    static final String REJECTED = "keel_http_server_rejected_total";

    private final List<Scrape> scrapes;
    private final Predicate<keel.lab.measure.Scrape.Sample> route;
    private final double start;

    Timeline(List<Scrape> scrapes, String routePattern) {
        this.scrapes = scrapes;
        this.route = sample -> sample.label("route").equals(routePattern);
        this.start = trafficStart();
    }

    private double trafficStart() {
        for (int i = 1; i < scrapes.size(); i++) {
            if (scrapes.get(i).sum(REQUESTS + "_count", route) > 0) return scrapes.get(i - 1).seconds();
        }
        return scrapes.isEmpty() ? 0 : scrapes.getFirst().seconds();
    }

    /** Requests the route completed per second (any status). */
    List<double[]> throughput() {
        List<double[]> points = new ArrayList<>();
        for (int i = firstInterval(); i < scrapes.size(); i++) {
            Scrape before = scrapes.get(i - 1);
            Scrape after = scrapes.get(i);
            double count = after.sum(REQUESTS + "_count", route) - before.sum(REQUESTS + "_count", route);
            points.add(new double[] {x(after), count / (after.seconds() - before.seconds())});
        }
        return points;
    }

    /** The route's server-side latency quantile in milliseconds; intervals without requests have no point. */
    List<double[]> latency(double q) {
        return quantiles(REQUESTS, route, q);
    }

    /** The lag quantile in milliseconds over every event loop; empty on the blocking transport. */
    List<double[]> lag(double q) {
        return quantiles(LAG, sample -> true, q);
    }

    /** The lag quantile in milliseconds over the whole run (NaN without loops). */
    double lagOverall(double q) {
        if (scrapes.size() < 2) return Double.NaN;
        return 1000 * Buckets.quantile(q, Buckets.delta(scrapes.getFirst().buckets(LAG, sample -> true),
                scrapes.getLast().buckets(LAG, sample -> true)));
    }

    /** Requests refused with 503 during the run, by any reason. */
    double rejected() {
        if (scrapes.size() < 2) return 0;
        return scrapes.getLast().sum(REJECTED, sample -> true) - scrapes.getFirst().sum(REJECTED, sample -> true);
    }

    /** The route's completed requests by status class over the whole run ("2xx" → 1200). */
    TreeMap<String, Double> statusClasses() {
        TreeMap<String, Double> classes = new TreeMap<>();
        if (scrapes.isEmpty()) return classes;
        for (keel.lab.measure.Scrape.Sample sample : scrapes.getLast().samples()) {
            if (sample.name().equals(REQUESTS + "_count") && route.test(sample)) classes.merge(sample.label("status_class"), sample.value(), Double::sum);
        }
        return classes;
    }

    /** The most live threads any scrape saw (-1 when unknown). */
    int peakThreads() {
        return scrapes.stream().mapToInt(Scrape::threads).max().orElse(-1);
    }

    /** Live threads over time. */
    List<double[]> threads() {
        List<double[]> points = new ArrayList<>();
        for (int i = firstInterval(); i < scrapes.size(); i++) {
            if (scrapes.get(i).threads() >= 0) points.add(new double[] {x(scrapes.get(i)), scrapes.get(i).threads()});
        }
        return points;
    }

    /** The collectors the server's JVM reported pauses for ({@code gc} labels), e.g. "Copy". */
    TreeSet<String> collectors() {
        TreeSet<String> names = new TreeSet<>();
        for (Scrape scrape : scrapes) {
            for (keel.lab.measure.Scrape.Sample sample : scrape.samples()) {
                if (sample.name().startsWith("jvm_gc_pause_seconds") && !sample.label("gc").isEmpty()) names.add(sample.label("gc"));
            }
        }
        return names;
    }

    private List<double[]> quantiles(String histogram, Predicate<keel.lab.measure.Scrape.Sample> filter, double q) {
        List<double[]> points = new ArrayList<>();
        for (int i = firstInterval(); i < scrapes.size(); i++) {
            double value = Buckets.quantile(q, Buckets.delta(scrapes.get(i - 1).buckets(histogram, filter),
                    scrapes.get(i).buckets(histogram, filter)));
            if (!Double.isNaN(value)) points.add(new double[] {x(scrapes.get(i)), 1000 * value});
        }
        return points;
    }

    private int firstInterval() {
        for (int i = 1; i < scrapes.size(); i++) {
            if (scrapes.get(i - 1).seconds() >= start) return i;
        }
        return scrapes.size();
    }

    private double x(Scrape scrape) {
        return Math.round((scrape.seconds() - start) * 10) / 10.0;
    }
}
