package keel.lab.report;

import java.util.List;
import java.util.Map;

/**
 * What one lab scenario measured, as plain values: the report writers turn it into
 * {@code <scenario>/report.md}, {@code <scenario>/results.json} and a section of {@code index.html}.
 *
 * @param scenario the CLI word ({@code modes}, {@code blocked-loop}, …)
 * @param title    a one-line heading
 * @param summary  the first lines of the report: the verdict a reader needs before any table
 *                 ("100 % success in every mode", "skipped: no broker on 127.0.0.1:5672")
 * @param setup    how it was measured: machine (cores, JDK, GC), load tool and its settings, repeats, pinning
 * @param tables   one row per mode (or per row the scenario compares), figures as text with their spread
 * @param charts   time series and bars for the HTML report
 * @param links    other artefacts, relative to the scenario's folder ("Gatling report" → "gatling/index.html")
 * @param skipped  true when the scenario could not run here (its summary says why)
 */
public record ScenarioResult(String scenario, String title, List<String> summary, List<String> setup, List<Table> tables,
                             List<Chart> charts, Map<String, String> links, boolean skipped) {

    /**
     * A table: {@code rows} hold display text (a figure with its spread, say "1 020 ±35"); {@code values}
     * hold the same figures as numbers (NaN when a cell has none), for the JSON and for comparisons.
     */
    public record Table(String title, List<String> columns, List<List<String>> rows, List<List<Double>> values) {
    }

    /** A chart: one or more named lines of (x, y) points; {@code kind} is {@code line} or {@code bar}. */
    public record Chart(String title, String kind, String xLabel, String yLabel, List<Line> lines) {
    }

    /** One line (or bar group) of a chart. */
    public record Line(String name, List<double[]> points) {
    }

    public static ScenarioResult skipped(String scenario, String title, String why) {
        return new ScenarioResult(scenario, title, List.of("skipped: " + why), List.of(), List.of(), List.of(), Map.of(), true);
    }
}
