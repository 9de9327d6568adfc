package keel.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.Exemplars;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import keel.core.loop.EventLoop;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * {@code keel_http_server_requests_seconds}: a histogram of request times with fixed buckets, and the
 * largest time of the last one to two minutes ({@code _max}), per method, route and status.
 *
 * <p>Recording costs no atomic instruction on an event loop. A Micrometer timer costs three atomic
 * updates and several volatile reads a record, about a tenth of the CPU of a pipelined request. Here
 * each event loop adds into cells only it writes (opaque stores: plain moves on x86, never torn); any
 * other thread (a worker, a virtual thread, the blocking transport) adds into one shared set of cells
 * under its lock. A scrape sums the cells it reads, on its own thread; a count and its sum may be one
 * record apart in a scrape that races a record.
 */
final class RequestTimes implements MultiCollector {
    static final String NAME = "keel_http_server_requests_seconds";
    private static final String HELP = "Time from a request being parsed to its response being produced";
    /** The window of {@code _max}: it reports the largest time of the current window and the one before. */
    private static final long MAX_WINDOW_MILLIS = 60_000;

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    /** Bucket upper bounds in nanoseconds, ascending; the cells have one more bucket, for +Inf. */
    private final long[] bounds;
    private final double[] boundsSeconds;
    /** Milliseconds of wall time, for the max's window. */
    private final LongSupplier millis;
    private final Map<List<String>, Series> series = new ConcurrentHashMap<>();

    RequestTimes(Duration[] buckets, LongSupplier millis) {
        this.bounds = Arrays.stream(buckets).mapToLong(Duration::toNanos).toArray();
        this.boundsSeconds = new double[bounds.length + 1];
        for (int i = 0; i < bounds.length; i++) boundsSeconds[i] = bounds[i] / 1e9;
        boundsSeconds[bounds.length] = Double.POSITIVE_INFINITY;
        this.millis = millis;
    }

    /** The series of these labels, made at its first use (any thread). */
    Series series(String method, String route, int status) {
        String code = Integer.toString(status);
        return series.computeIfAbsent(List.of(method, route, code), key -> new Series(
                Labels.of("method", method, "route", route, "status", code, "status_class", KeelMetrics.statusClass(status))));
    }

    @Override
    public List<String> getPrometheusNames() {
        return List.of(NAME, NAME + "_max");
    }

    @Override
    public MetricSnapshots collect() {
        long window = millis.getAsLong() / MAX_WINDOW_MILLIS;
        List<HistogramSnapshot.HistogramDataPointSnapshot> histograms = new ArrayList<>(series.size());
        List<GaugeSnapshot.GaugeDataPointSnapshot> maxima = new ArrayList<>(series.size());
        for (Series one : series.values()) {
            Cells sum = one.sum(window);
            histograms.add(new HistogramSnapshot.HistogramDataPointSnapshot(
                    ClassicHistogramBuckets.of(boundsSeconds, Arrays.copyOf(sum.values, boundsSeconds.length)), sum.sum() / 1e9,
                    one.labels, Exemplars.EMPTY, 0));
            maxima.add(new GaugeSnapshot.GaugeDataPointSnapshot(sum.max() / 1e9, one.labels, null));
        }
        return new MetricSnapshots(
                new HistogramSnapshot(new MetricMetadata(NAME, HELP, Unit.SECONDS), histograms),
                new GaugeSnapshot(new MetricMetadata(NAME + "_max", HELP), maxima));
    }

    /** One series: the cells of each event loop that recorded into it, and the cells of every other thread. */
    final class Series {
        private final Labels labels;
        /** Copy on write: a loop's cells are added once, at its first record. */
        private volatile Cells[] loops = new Cells[0];
        private final Cells shared = new Cells(null);

        private Series(Labels labels) {
            this.labels = labels;
        }

        /** Records one request's time, from any thread. */
        void record(long nanos) {
            if (nanos < 0) nanos = 0;
            long window = millis.getAsLong() / MAX_WINDOW_MILLIS;
            EventLoop loop = EventLoop.current();
            if (loop != null) {
                cellsOf(loop).add(bucket(nanos), nanos, window);
            } else {
                synchronized (shared) {
                    shared.add(bucket(nanos), nanos, window);
                }
            }
        }

        private Cells cellsOf(EventLoop loop) {
            for (Cells cells : loops) {
                if (cells.owner == loop) return cells;
            }
            synchronized (this) {
                Cells[] now = loops;
                Cells cells = new Cells(loop);
                Cells[] more = Arrays.copyOf(now, now.length + 1);
                more[now.length] = cells;
                loops = more;
                return cells;
            }
        }

        /** The cells of every thread summed, the max of the current window and the one before. */
        private Cells sum(long window) {
            Cells total = new Cells(null);
            shared.addTo(total, window);
            for (Cells cells : loops) cells.addTo(total, window);
            return total;
        }
    }

    private int bucket(long nanos) {
        int i = Arrays.binarySearch(bounds, nanos);
        return i >= 0 ? i : -i - 1; // a time on a bound counts in that bound's bucket (le)
    }

    /**
     * Counts, one thread writing: {@code values} holds each bucket's count (the last: +Inf), then
     * the sum of the times, then the max's window, its max, and the max of the window before.
     */
    private final class Cells {
        private final EventLoop owner;
        private final long[] values = new long[bounds.length + 5];
        private final int sum = bounds.length + 1;
        private final int window = sum + 1;
        private final int max = sum + 2;
        private final int previousMax = sum + 3;

        Cells(EventLoop owner) {
            this.owner = owner;
        }

        /** By the one thread that writes these cells (or under the lock of shared ones). */
        void add(int bucket, long nanos, long now) {
            long[] v = values;
            LONGS.setOpaque(v, bucket, v[bucket] + 1);
            LONGS.setOpaque(v, sum, v[sum] + nanos);
            if (v[window] != now) {
                LONGS.setOpaque(v, previousMax, v[window] == now - 1 ? v[max] : 0L);
                LONGS.setOpaque(v, max, 0L);
                LONGS.setOpaque(v, window, now);
            }
            if (nanos > v[max]) LONGS.setOpaque(v, max, nanos);
        }

        /** Adds these counts into {@code total}, and their max when its window is {@code now} or the one before. */
        void addTo(Cells total, long now) {
            for (int i = 0; i <= sum; i++) total.values[i] += (long) LONGS.getOpaque(values, i);
            long at = (long) LONGS.getOpaque(values, window);
            long largest = at == now ? Math.max((long) LONGS.getOpaque(values, max), (long) LONGS.getOpaque(values, previousMax))
                    : at == now - 1 ? (long) LONGS.getOpaque(values, max) : 0;
            total.values[max] = Math.max(total.values[max], largest);
        }

        long sum() {
            return values[sum];
        }

        long max() {
            return values[max];
        }
    }
}
