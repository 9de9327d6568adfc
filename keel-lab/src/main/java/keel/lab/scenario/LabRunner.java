package keel.lab.scenario;

import keel.lab.report.Figures;
import keel.lab.report.HtmlReport;
import keel.lab.report.LabReport;
import keel.lab.report.MarkdownReport;
import keel.lab.report.ResultsJson;
import keel.lab.report.ScenarioResult;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs scenarios one after the other and writes their reports: {@code DIR/<scenario>/report.md} and
 * {@code results.json} as each one ends, then {@code DIR/index.html} and {@code DIR/results.json}
 * (rewritten after every scenario, so an interrupted run still leaves a report). A scenario that
 * throws becomes a result whose summary says {@code failed: <reason>}, and the run goes on.
 */
public final class LabRunner {
    private final Path out;
    private final boolean quick;
    private final List<Path> configs;
    private final int serverCpu;
    private final int clientCpu;
    private final PrintStream progress;

    public LabRunner(Path out, boolean quick, int serverCpu, int clientCpu, PrintStream progress) {
        this(out, quick, serverCpu, clientCpu, List.of(), progress);
    }

    /** With the keel.yaml files of {@code --config}, which {@code modes} runs as its modes. */
    public LabRunner(Path out, boolean quick, int serverCpu, int clientCpu, List<Path> configs, PrintStream progress) {
        this.configs = List.copyOf(configs);
        this.out = out;
        this.quick = quick;
        this.serverCpu = serverCpu;
        this.clientCpu = clientCpu;
        this.progress = progress;
    }

    /** Runs {@code scenarios} in order; the report of the whole run. */
    public LabReport run(List<Scenario> scenarios) throws IOException {
        Files.createDirectories(out);
        Instant started = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        long start = System.nanoTime();
        List<String> machine = Machine.lines(serverCpu, clientCpu);
        List<ScenarioResult> results = new ArrayList<>();
        LabReport report = null;
        for (int i = 0; i < scenarios.size(); i++) {
            Scenario scenario = scenarios.get(i);
            progress.printf("lab: %s (%d/%d)%s%n", scenario.name(), i + 1, scenarios.size(), quick ? ", quick" : "");
            ScenarioResult result = runOne(scenario, machine);
            results.add(result);
            Path folder = out.resolve(scenario.name());
            Files.writeString(folder.resolve("report.md"), MarkdownReport.render(result));
            ResultsJson.write(folder.resolve("results.json"), result);
            report = new LabReport(started.toString(), (System.nanoTime() - start) / 1e9, machine, List.copyOf(results));
            Files.writeString(out.resolve("index.html"), HtmlReport.render(report));
            ResultsJson.write(out.resolve("results.json"), report);
            for (String line : result.summary()) progress.println("lab: " + scenario.name() + ": " + line);
        }
        return report != null ? report : new LabReport(started.toString(), 0, machine, List.of());
    }

    private ScenarioResult runOne(Scenario scenario, List<String> machine) throws IOException {
        Path folder = out.resolve(scenario.name());
        Files.createDirectories(folder);
        long start = System.nanoTime();
        ScenarioResult result;
        try {
            result = scenario.run(new LabRun(folder, quick, serverCpu, clientCpu, configs));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result = failed(scenario.name(), "interrupted");
        } catch (Exception | AssertionError e) {
            e.printStackTrace(progress);
            result = failed(scenario.name(), e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        List<String> setup = new ArrayList<>(machine);
        setup.addAll(result.setup());
        setup.add("took " + Figures.format((System.nanoTime() - start) / 1e9) + " s" + (quick ? " (--quick)" : ""));
        return new ScenarioResult(result.scenario(), result.title(), result.summary(), List.copyOf(setup), result.tables(),
                result.charts(), result.links(), result.skipped());
    }

    static ScenarioResult failed(String scenario, String reason) {
        String firstLine = reason == null ? "no reason given" : reason.lines().findFirst().orElse("");
        return new ScenarioResult(scenario, scenario, List.of("failed: " + firstLine), List.of(), List.of(), List.of(), Map.of(), false);
    }

    /** True when a result stands for a scenario that threw. */
    public static boolean isFailed(ScenarioResult result) {
        return result.summary().stream().anyMatch(line -> line.startsWith("failed:"));
    }
}
