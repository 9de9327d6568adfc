package keel.lab.scenario;

import keel.lab.measure.LoadResult;
import keel.lab.measure.MetricsSampler;

import java.util.List;

/**
 * One mode under load, once: the client's view ({@link LoadResult}), the server's metrics over time
 * and over the whole run, its JVM's peak thread count, and its GC.
 *
 * @param whole the run as one interval (null when fewer than two scrapes succeeded)
 */
public record LoadRun(String mode, LoadResult load, List<MetricsSampler.Interval> intervals, MetricsSampler.Interval whole,
                      int peakThreads, String gc) {

    /** A figure of the whole run, NaN when the metrics could not be read. */
    public double server(java.util.function.ToDoubleFunction<MetricsSampler.Interval> figure) {
        return whole == null ? Double.NaN : figure.applyAsDouble(whole);
    }
}
