package keel.lab.report;

import java.util.List;
import java.util.Map;

/** Synthetic results for the writer tests: known figures, one line chart and one bar chart. */
final class Samples {
    private Samples() {
    }

    static ScenarioResult blockedLoop(double eventLoopRate, double virtualRate) {
        ScenarioResult.Table table = new TableBuilder("Throughput", "mode", "req/s", "errors")
                .row(Figures.Cell.text("event-loop"), Figures.Cell.number(eventLoopRate), Figures.Cell.text("0"))
                .row(Figures.Cell.text("virtual-thread"), Figures.Cell.spread(virtualRate, virtualRate - 20, virtualRate + 10), new Figures.Cell("503=2", 2))
                .build();
        ScenarioResult.Chart line = new ScenarioResult.Chart("p99 over time", "line", "seconds", "p99 ms", List.of(
                new ScenarioResult.Line("event-loop", List.of(new double[]{1, 1000}, new double[]{2, 3000}, new double[]{3, 5000})),
                new ScenarioResult.Line("virtual-thread", List.of(new double[]{1, 50}, new double[]{2, 52}, new double[]{3, 51}))));
        ScenarioResult.Chart bars = new ScenarioResult.Chart("req/s", "bar", "mode", "req/s", List.of(
                new ScenarioResult.Line("event-loop", List.<double[]>of(new double[]{0, eventLoopRate})),
                new ScenarioResult.Line("virtual-thread", List.<double[]>of(new double[]{0, virtualRate}))));
        return new ScenarioResult("blocked-loop", "A blocked loop", List.of("event loop: " + eventLoopRate + " req/s"),
                List.of("load: 200 users"), List.of(table), List.of(line, bars), Map.of("server log", "event-loop-1.log"), false);
    }
}
