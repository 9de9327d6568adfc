package keel.lab.scenario;

import keel.lab.measure.LoadResult;
import keel.lab.measure.MetricsSampler;
import keel.lab.report.Figures.Cell;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * One mode under load, once: the client's view ({@link LoadResult}), the server's metrics over time
 * and over the whole run, its JVM's peak thread count, and its GC.
 *
 * @param whole the run as one interval (null when fewer than two scrapes succeeded)
 */
public record LoadRun(String mode, LoadResult load, List<MetricsSampler.Interval> intervals, MetricsSampler.Interval whole,
                      int peakThreads, String gc) {

    /** A figure of the whole run, NaN when the metrics could not be read. */
    public double server(ToDoubleFunction<MetricsSampler.Interval> figure) {
        return whole == null ? Double.NaN : figure.applyAsDouble(whole);
    }

    /** A client-side figure over repeats: median (min–max). */
    static Cell client(List<LoadRun> repeats, ToDoubleFunction<LoadResult> figure) {
        return Cell.spread(repeats.stream().mapToDouble(r -> figure.applyAsDouble(r.load())).toArray());
    }

    /** A server-side figure of the whole run over repeats: median (min–max). */
    static Cell server(List<LoadRun> repeats, ToDoubleFunction<MetricsSampler.Interval> figure) {
        return Cell.spread(repeats.stream().mapToDouble(r -> r.server(figure)).toArray());
    }

    /** The errors of all repeats together: each kind with its count ("503=12, timeout=2"; "0" when clean), the total as the number. */
    static Cell errors(List<LoadRun> repeats) {
        Map<String, Long> kinds = new TreeMap<>();
        for (LoadRun r : repeats) r.load().errorKinds().forEach((kind, count) -> kinds.merge(kind, count, Long::sum));
        long total = repeats.stream().mapToLong(r -> r.load().errors()).sum();
        StringBuilder text = new StringBuilder();
        kinds.forEach((kind, count) -> text.append(text.isEmpty() ? "" : ", ").append(kind).append('=').append(count));
        return new Cell(total == 0 ? "0" : text.toString(), total);
    }

    /** The median of a figure over the repeats of {@code mode}. */
    static double median(List<LoadRun> runs, String mode, ToDoubleFunction<LoadRun> figure) {
        return Cell.spread(runs.stream().filter(r -> r.mode().equals(mode)).mapToDouble(figure).toArray()).value();
    }
}
