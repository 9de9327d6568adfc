package keel.lab.measure;

import keel.lab.scenario.KeelProcess;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Reads a Keel server's {@code /metrics} about every second while a scenario drives it (on a virtual
 * thread of its own), with the JVM's thread count and CPU time beside each read, and turns
 * consecutive reads into {@link Interval}s. A read blocked behind a stalled loop simply takes longer:
 * intervals have the length the reads had. At most {@link #MAX_POINTS} reads are kept (the oldest
 * after that are dropped), and {@link #close} stops the thread.
 */
public final class MetricsSampler implements AutoCloseable {
    public static final int MAX_POINTS = 3600;
    private static final HttpClient SCRAPER = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static final String REQUESTS = "keel_http_server_requests_seconds";
    private static final String LAG = "keel_event_loop_lag_seconds";
    /** The scrapes themselves are requests too: they are left out of the request figures. */
    private static final Predicate<Scrape.Sample> NOT_SCRAPES = s -> !s.label("route").equals("/metrics");

    /** One read: the scrape (null when it failed), the JVM's live threads and CPU milliseconds. */
    public record Point(long nanos, Scrape scrape, int threads, long cpuMillis) {
    }

    /**
     * What happened between two reads. Latencies in ms, from the server's request histogram
     * (interpolated inside its buckets); loop lag p99 is the highest of the loops' p99, lag max the
     * upper bound of the highest lag bucket reached; {@code cpuPercent} of one CPU.
     */
    public record Interval(double atSeconds, double seconds, double requestsPerSecond, double successPercent, double p50Ms,
                           double p99Ms, double lagP99Ms, double lagMaxMs, double blocked, int threads, int peakThreads,
                           double cpuPercent) {
    }

    private final KeelProcess process;
    private final URI metrics;
    private final Duration every;
    private final List<Point> points = new ArrayList<>();
    private final long startNanos = System.nanoTime();
    private final Thread thread;
    private volatile boolean stopped;

    private MetricsSampler(KeelProcess process, Duration every) {
        this.process = process;
        this.metrics = process.uri("/metrics");
        this.every = every;
        points.add(read()); // the baseline, taken before start returns: before any load begins
        this.thread = Thread.ofVirtual().name("lab-metrics-sampler").start(this::sample);
    }

    /** Reads {@code process}'s metrics once now (before returning), then every {@code every} on a virtual thread. */
    public static MetricsSampler start(KeelProcess process, Duration every) {
        return new MetricsSampler(process, every);
    }

    private void sample() {
        long due = System.nanoTime() + every.toNanos();
        while (!stopped) {
            long wait = due - System.nanoTime();
            if (wait > 0) {
                try {
                    Thread.sleep(Duration.ofNanos(wait));
                } catch (InterruptedException e) {
                    return;
                }
            }
            due = System.nanoTime() + every.toNanos();
            Point point = read();
            synchronized (points) {
                if (points.size() == MAX_POINTS) points.removeFirst();
                points.add(point);
            }
        }
    }

    /** Reads once now, on the caller's thread (also used for a last read after the load). */
    public Point read() {
        int threads = process.threads();
        long cpu = process.cpuMillis();
        Scrape scrape = null;
        try {
            HttpResponse<String> answer = SCRAPER.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() == 200) scrape = Scrape.parse(System.nanoTime(), answer.body());
        } catch (IOException e) {
            scrape = null; // a lost read leaves a gap: the next interval spans it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new Point(System.nanoTime(), scrape, threads, cpu);
    }

    /** Stops reading (waits for a read in progress up to 25 s), then reads once more: the run's last figures. */
    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join(Duration.ofSeconds(25));
        Point last = read();
        synchronized (points) {
            if (points.size() == MAX_POINTS) points.removeFirst();
            points.add(last);
        }
    }

    public List<Point> points() {
        synchronized (points) {
            return List.copyOf(points);
        }
    }

    /** The intervals between consecutive successful reads, timed from when the sampler started. */
    public List<Interval> intervals() {
        return intervals(points(), startNanos);
    }

    /** The whole run as one interval: from the first successful read to the last. */
    public Interval whole() {
        List<Point> read = points().stream().filter(p -> p.scrape() != null).toList();
        if (read.size() < 2) return null;
        return between(read.getFirst(), read.getLast(), read, startNanos);
    }

    /** The most threads any read saw. */
    public int peakThreads() {
        return points().stream().mapToInt(Point::threads).max().orElse(-1);
    }

    static List<Interval> intervals(List<Point> points, long startNanos) {
        List<Interval> intervals = new ArrayList<>();
        Point previous = null;
        for (Point point : points) {
            if (point.scrape() == null) continue;
            if (previous != null) intervals.add(between(previous, point, points, startNanos));
            previous = point;
        }
        return intervals;
    }

    static Interval between(Point a, Point b, List<Point> all, long startNanos) {
        double seconds = (b.scrape().nanos() - a.scrape().nanos()) / 1e9;
        double requests = b.scrape().sum(REQUESTS + "_count", NOT_SCRAPES) - a.scrape().sum(REQUESTS + "_count", NOT_SCRAPES);
        Predicate<Scrape.Sample> ok = NOT_SCRAPES.and(s -> s.label("status_class").equals("2xx"));
        double succeeded = b.scrape().sum(REQUESTS + "_count", ok) - a.scrape().sum(REQUESTS + "_count", ok);
        NavigableMap<Double, Double> latency = Buckets.delta(a.scrape().buckets(REQUESTS, NOT_SCRAPES, null).get(""),
                b.scrape().buckets(REQUESTS, NOT_SCRAPES, null).getOrDefault("", new TreeMap<>()));
        double lagP99 = Double.NaN;
        double lagMax = Double.NaN;
        Map<String, NavigableMap<Double, Double>> lagBefore = a.scrape().buckets(LAG, s -> true, "loop");
        for (Map.Entry<String, NavigableMap<Double, Double>> loop : b.scrape().buckets(LAG, s -> true, "loop").entrySet()) {
            NavigableMap<Double, Double> grown = Buckets.delta(lagBefore.get(loop.getKey()), loop.getValue());
            lagP99 = maxOf(lagP99, Buckets.quantile(0.99, grown) * 1000);
            lagMax = maxOf(lagMax, Buckets.maxBound(grown) * 1000);
        }
        double blocked = b.scrape().sum("keel_event_loop_blocked_total", s -> true) - a.scrape().sum("keel_event_loop_blocked_total", s -> true);
        int peak = all.stream().filter(p -> p.nanos() > a.nanos() && p.nanos() <= b.nanos()).mapToInt(Point::threads).max().orElse(b.threads());
        double cpu = a.cpuMillis() < 0 || b.cpuMillis() < 0 ? Double.NaN : (b.cpuMillis() - a.cpuMillis()) / (seconds * 10);
        return new Interval((b.scrape().nanos() - startNanos) / 1e9, seconds, seconds > 0 ? requests / seconds : Double.NaN,
                requests > 0 ? 100 * succeeded / requests : Double.NaN, Buckets.quantile(0.5, latency) * 1000,
                Buckets.quantile(0.99, latency) * 1000, lagP99, lagMax, blocked, b.threads(), peak, cpu);
    }

    private static double maxOf(double current, double candidate) {
        if (Double.isNaN(candidate)) return current;
        return Double.isNaN(current) ? candidate : Math.max(current, candidate);
    }
}
