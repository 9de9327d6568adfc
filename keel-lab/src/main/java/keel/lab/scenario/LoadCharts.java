package keel.lab.scenario;

import keel.lab.measure.LoadResult;
import keel.lab.measure.MetricsSampler;
import keel.lab.report.ScenarioResult.Chart;
import keel.lab.report.ScenarioResult.Line;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The charts every load scenario draws, one line per mode (its first repeat): latency p50/p99 and
 * throughput over time as the client saw them, loop lag p99, success % and the JVM's threads over
 * time from the server's metrics.
 */
final class LoadCharts {
    private LoadCharts() {
    }

    static List<Chart> of(String what, List<LoadRun> runs) {
        return List.of(
                client(what + ": p99 latency over time (client)", "p99 ms", runs, LoadResult.Second::p99Ms),
                client(what + ": p50 latency over time (client)", "p50 ms", runs, LoadResult.Second::p50Ms),
                client(what + ": throughput over time (client)", "answers/s", runs, s -> s.answers()),
                server(what + ": loop lag p99 over time", "lag p99 ms", runs, MetricsSampler.Interval::lagP99Ms),
                client(what + ": success % over time (client)", "2xx %", runs, LoadResult.Second::successPercent),
                server(what + ": JVM threads over time", "threads", runs, i -> i.peakThreads()));
    }

    static Chart client(String title, String yLabel, List<LoadRun> runs, ToDoubleFunction<LoadResult.Second> y) {
        return chart(title, yLabel, runs, run -> run.load().perSecond().stream().map(s -> new double[]{s.at(), y.applyAsDouble(s)}).toList());
    }

    static Chart server(String title, String yLabel, List<LoadRun> runs, ToDoubleFunction<MetricsSampler.Interval> y) {
        return chart(title, yLabel, runs, run -> run.intervals().stream().map(i -> new double[]{i.atSeconds(), y.applyAsDouble(i)}).toList());
    }

    private static Chart chart(String title, String yLabel, List<LoadRun> runs, Function<LoadRun, List<double[]>> points) {
        List<Line> lines = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (LoadRun run : runs) {
            if (seen.contains(run.mode())) continue; // the first repeat of each mode
            seen.add(run.mode());
            lines.add(new Line(run.mode(), points.apply(run)));
        }
        return new Chart(title, "line", "seconds", yLabel, lines);
    }
}
