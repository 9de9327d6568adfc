package keel.lab.modes;

import keel.lab.measure.MetricsSampler;
import keel.lab.report.ScenarioResult;
import keel.lab.scenario.KeelProcess;
import keel.lab.scenario.LabRun;
import keel.lab.scenario.Scenario;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code bin/keel lab modes}: every execution model (the transport × threads matrix plus the event
 * loop) on the hello, cpu and latency routes, each in a fresh cold server pinned to the server CPU,
 * under seed-style open-model ramps that Gatling drives from its own JVM pinned to the client CPU.
 * {@code /metrics} is scraped once a second during each run. The verdict is whether every mode
 * answered every request (DESIGN.md problem 5).
 *
 * <p>With {@code --config FILE} (repeated), each keel.yaml file is one mode in place of the built-in
 * five: its {@code routes:} section compares executions route by route, with no code change.
 *
 * <p>The latency route blocks for 100 ms. On the event loop it runs with the guard's
 * {@code on-blocked: offload}, which moves it to virtual threads after its first blocked turn:
 * without it one loop answers 10 requests a second, which the {@code blocked-loop} scenario shows.
 */
public final class ModesScenario implements Scenario {
    static final String TITLE = "Execution modes under cold open-model ramps";

    @Override
    public String name() {
        return "modes";
    }

    @Override
    public ScenarioResult run(LabRun run) throws Exception {
        StringBuilder why = new StringBuilder();
        Optional<GatlingRunner> gatling = GatlingRunner.locate(why);
        if (gatling.isEmpty()) return ScenarioResult.skipped(name(), TITLE, why.toString());
        String loadBefore = ModesReport.loadAverage();
        List<Measured> measured = new ArrayList<>();
        List<Mode> modes = run.configs().isEmpty() ? Mode.ALL : run.configs().stream().map(Mode::of).toList();
        for (Mode mode : modes) {
            for (Workload workload : Workload.of(run.quick())) {
                measured.add(measure(gatling.get(), run, mode, workload));
            }
        }
        return ModesReport.result(name(), TITLE, run, gatling.get(), measured, loadBefore + " before, " + ModesReport.loadAverage() + " after");
    }

    /** What one mode did on one route: Gatling's rows per phase and the server's scrapes, or why the run failed. */
    record Measured(Mode mode, Workload workload, boolean offloaded, List<Phase> phases, List<GatlingStats.Row> rows,
                    Timeline timeline, double serverCpuSeconds, String report, String failure) {

        /** Gatling's row for {@code phase}, if it sent any request in it. */
        Optional<GatlingStats.Row> row(Phase phase) {
            return rows.stream().filter(row -> row.name().equals(phase.name())).findFirst();
        }
    }

    private static Measured measure(GatlingRunner gatling, LabRun run, Mode mode, Workload workload) throws InterruptedException {
        String id = mode.name() + "-" + workload.name();
        boolean offloaded = mode.runsHandlersOnTheLoop() && workload.blocks();
        List<String> flags = new ArrayList<>(mode.flags());
        if (offloaded) flags.addAll(List.of("--on-blocked", "offload"));
        List<Phase> phases = workload.phases(run.quick());
        Path results = run.out().resolve("gatling").resolve(id);
        try (KeelProcess keel = KeelProcess.start(run.out().resolve("logs").resolve(id + "-server.log"), run.serverCpu(),
                Duration.ofSeconds(30), List.of(), flags.toArray(String[]::new))) {
            MetricsSampler sampler = MetricsSampler.start(keel, Duration.ofSeconds(1));
            Path report;
            try {
                report = gatling.run(keel.uri(""), workload.target(), phases, run.clientCpu(), results,
                        run.out().resolve("logs").resolve(id + "-gatling.log"));
            } finally {
                sampler.close();
            }
            double cpuSeconds = keel.cpuMillis() / 1000.0;
            List<GatlingStats.Row> rows = GatlingStats.parse(Files.readString(report.resolve("index.html")));
            String link = run.out().relativize(report.resolve("index.html")).toString().replace('\\', '/');
            return new Measured(mode, workload, offloaded, phases, rows, new Timeline(Scrape.of(sampler.points()), workload.route()), cpuSeconds, link, null);
        } catch (IOException | RuntimeException e) {
            return new Measured(mode, workload, offloaded, phases, List.of(), new Timeline(List.of(), workload.route()), Double.NaN, null,
                    e.getClass().getSimpleName() + ": " + firstLine(e.getMessage()));
        }
    }

    private static String firstLine(String message) {
        if (message == null) return "";
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
