package keel.lab.modes;

import keel.lab.report.ScenarioResult;
import keel.lab.report.ScenarioResult.Chart;
import keel.lab.report.ScenarioResult.Line;
import keel.lab.report.ScenarioResult.Table;
import keel.lab.scenario.LabRun;
import keel.lab.scenario.Machine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** Turns the measured runs into the scenario's result: the verdict first, then set-up, tables, charts and Gatling's reports. */
final class ModesReport {
    private ModesReport() {
    }

    /** {@code load}: the machine's load averages before and after, as the set-up states them. */
    static ScenarioResult result(String scenario, String title, LabRun run, GatlingRunner gatling, List<ModesScenario.Measured> runs,
                                 String load) {
        List<Workload> workloads = runs.stream().map(ModesScenario.Measured::workload).distinct().toList();
        List<Mode> modes = runs.stream().map(ModesScenario.Measured::mode).distinct().toList();
        Map<String, String> links = new LinkedHashMap<>();
        for (ModesScenario.Measured measured : runs) {
            if (measured.report() != null) links.put("Gatling report: " + measured.mode().name() + " " + measured.workload().name(), measured.report());
        }
        return new ScenarioResult(scenario, title, summary(runs, modes.size(), workloads.size(), run.quick()), setup(run, gatling, runs, load),
                List.of(phaseTable(runs), serverTable(runs)), charts(runs, modes, workloads), links, false);
    }

    /** First line: 100 % in every mode, or which mode and phase lost how many. */
    static List<String> summary(List<ModesScenario.Measured> runs, int modes, int workloads, boolean quick) {
        long requests = 0;
        List<String> losses = new ArrayList<>();
        for (ModesScenario.Measured measured : runs) {
            String where = measured.mode().name() + " " + measured.workload().name();
            if (measured.failure() != null) {
                losses.add(where + ": run failed (" + measured.failure() + ")");
                continue;
            }
            for (Phase phase : measured.phases()) {
                var row = measured.row(phase);
                long sent = row.map(GatlingStats.Row::requests).orElse(0L);
                long ko = row.map(GatlingStats.Row::ko).orElse(0L);
                requests += sent;
                if (ko > 0) losses.add(where + " " + phase.name() + ": lost " + ko + " of " + sent + " (" + percent(100.0 * (sent - ko) / sent) + " % success)");
                // Gatling rounds arrival times; a phase short by more than 1 % did not run to its end.
                else if (sent < 0.99 * phase.users()) losses.add(where + " " + phase.name() + ": sent only " + sent + " of " + phase.users() + " requests");
            }
        }
        List<String> summary = new ArrayList<>();
        String shape = modes + (modes == 1 ? " mode × " : " modes × ") + workloads + (workloads == 1 ? " route" : " routes");
        if (losses.isEmpty()) summary.add("100 % success in every mode (" + group(requests) + " requests, " + shape + ")");
        else summary.add("Not 100 % in every mode (" + group(requests) + " requests, " + shape + "): " + String.join("; ", losses));
        double shed = runs.stream().mapToDouble(measured -> measured.timeline().rejected()).sum();
        double lag = runs.stream().filter(measured -> measured.mode().hasEventLoops())
                .mapToDouble(measured -> measured.timeline().lagOverall(0.99)).filter(value -> !Double.isNaN(value)).max().orElse(Double.NaN);
        summary.add("Server side: " + group(Math.round(shed)) + " requests shed with 503; event-loop lag p99 over a whole run at most "
                + millis(lag) + " ms (worst nio mode and route).");
        if (quick) summary.add("Quick run: phases of a few seconds and no cpu route; the full run's figures are in bench/RESULTS.md.");
        return summary;
    }

    private static List<String> setup(LabRun run, GatlingRunner gatling, List<ModesScenario.Measured> runs, String load) {
        TreeSet<String> collectors = new TreeSet<>();
        runs.forEach(measured -> collectors.addAll(measured.timeline().collectors()));
        List<String> setup = new ArrayList<>();
        setup.add("Machine: " + Machine.cpus() + " CPUs (" + cpuModel() + "), " + System.getProperty("os.name") + " "
                + System.getProperty("os.version") + "; JDK " + Runtime.version() + " (" + System.getProperty("java.vendor") + "); "
                + "1-minute load average " + load + " (above 0 means other work shared the CPUs: latencies are noisy).");
        setup.add("Server: a fresh cold JVM per mode and route (--warmup false), " + pinning(run.serverCpu())
                + "; default heap; GC by ergonomics" + (collectors.isEmpty() ? "" : " (pauses reported by: " + String.join(", ", collectors) + ")") + ".");
        setup.add("Load: Gatling " + gatling.version() + " (open model: every virtual user opens its own connection and sends one GET; request timeout 60 s), "
                + "its own JVM (" + String.join(" ", gatling.jvmOptions().subList(0, 2)) + "), " + pinning(run.clientCpu()) + ".");
        for (Workload workload : runs.stream().map(ModesScenario.Measured::workload).distinct().toList()) {
            setup.add("Phases for " + workload.name() + " (" + workload.target() + "): "
                    + workload.phases(run.quick()).stream().map(phase -> phase.name() + " " + phase.injection()).collect(Collectors.joining(", ")) + ".");
        }
        setup.add("nio-event-loop runs the latency route (a 100 ms blocking sleep) with --on-blocked offload: the guard moves it to virtual threads "
                + "after its first blocked turn (without it one loop answers 10 requests a second; see the blocked-loop scenario).");
        setup.add("Repeats: 1 run per mode and route, so no spread is given; latency percentiles are Gatling's over all requests of a phase, "
                + "time series come from /metrics scraped every second (server-side latency, from the histogram's buckets).");
        return setup;
    }

    private static Table phaseTable(List<ModesScenario.Measured> runs) {
        List<String> columns = List.of("mode", "route", "phase", "injection", "requests", "success %", "p95 ms", "p99 ms", "max ms", "req/s");
        List<List<String>> rows = new ArrayList<>();
        List<List<Double>> values = new ArrayList<>();
        for (ModesScenario.Measured measured : runs) {
            for (Phase phase : measured.phases()) {
                var row = measured.row(phase);
                double requests = row.map(r -> (double) r.requests()).orElse(Double.NaN);
                double success = row.map(GatlingStats.Row::successPercent).orElse(Double.NaN);
                double p95 = row.map(GatlingStats.Row::p95).orElse(Double.NaN);
                double p99 = row.map(GatlingStats.Row::p99).orElse(Double.NaN);
                double max = row.map(GatlingStats.Row::max).orElse(Double.NaN);
                double rate = row.map(r -> (double) r.ok() / phase.seconds()).orElse(Double.NaN);
                String mode = measured.mode().name() + (measured.offloaded() ? " (offload)" : "");
                rows.add(List.of(mode, measured.workload().name(), phase.name(), phase.injection(), whole(requests), percent(success),
                        whole(p95), whole(p99), whole(max), whole(rate)));
                values.add(List.of(Double.NaN, Double.NaN, Double.NaN, Double.NaN, requests, success, p95, p99, max, rate));
            }
        }
        return new Table("Per phase (Gatling: all requests of the phase; req/s = successful requests ÷ phase length)", columns, rows, values);
    }

    private static Table serverTable(List<ModesScenario.Measured> runs) {
        List<String> columns = List.of("mode", "route", "server 2xx", "503 shed", "loop lag p99 ms", "peak threads", "server CPU s");
        List<List<String>> rows = new ArrayList<>();
        List<List<Double>> values = new ArrayList<>();
        for (ModesScenario.Measured measured : runs) {
            Timeline timeline = measured.timeline();
            double ok = timeline.statusClasses().getOrDefault("2xx", Double.NaN);
            double shed = timeline.rejected();
            double lag = measured.mode().hasEventLoops() ? timeline.lagOverall(0.99) : Double.NaN;
            double threads = timeline.peakThreads() < 0 ? Double.NaN : timeline.peakThreads();
            double cpu = measured.serverCpuSeconds();
            rows.add(List.of(measured.mode().name(), measured.workload().name(), whole(ok), whole(shed),
                    measured.mode().hasEventLoops() ? millis(lag) : "no loops", whole(threads), Double.isNaN(cpu) ? "—" : String.format(Locale.ROOT, "%.1f", cpu)));
            values.add(List.of(Double.NaN, Double.NaN, ok, shed, lag, threads, cpu));
        }
        return new Table("Per run (the server's /metrics over the whole run)", columns, rows, values);
    }

    private static List<Chart> charts(List<ModesScenario.Measured> runs, List<Mode> modes, List<Workload> workloads) {
        List<Chart> charts = new ArrayList<>();
        for (Mode mode : modes) {
            List<Line> lines = new ArrayList<>();
            for (ModesScenario.Measured measured : runs) {
                if (!measured.mode().equals(mode)) continue;
                for (double q : new double[] {0.5, 0.95, 0.99}) {
                    lines.add(new Line(measured.workload().name() + " p" + Math.round(q * 100), measured.timeline().latency(q)));
                }
            }
            charts.add(new Chart(mode.name() + ": server latency percentiles over time", "line", "seconds", "ms", lines));
        }
        for (Workload workload : workloads) {
            List<ModesScenario.Measured> ofRoute = runs.stream().filter(measured -> measured.workload().equals(workload)).toList();
            charts.add(new Chart(workload.name() + ": throughput over time", "line", "seconds", "requests/s",
                    ofRoute.stream().map(measured -> new Line(measured.mode().name(), measured.timeline().throughput())).toList()));
            charts.add(new Chart(workload.name() + ": event-loop lag p99 over time (nio modes)", "line", "seconds", "ms",
                    ofRoute.stream().filter(measured -> measured.mode().hasEventLoops())
                            .map(measured -> new Line(measured.mode().name(), measured.timeline().lag(0.99))).toList()));
            charts.add(new Chart(workload.name() + ": threads over time", "line", "seconds", "threads",
                    ofRoute.stream().map(measured -> new Line(measured.mode().name(), measured.timeline().threads())).toList()));
            charts.add(new Chart(workload.name() + ": success % per phase (x: phase 1, 2, 3)", "bar", "phase", "success %",
                    ofRoute.stream().map(ModesReport::successPerPhase).toList()));
        }
        return charts;
    }

    private static Line successPerPhase(ModesScenario.Measured measured) {
        List<double[]> points = new ArrayList<>();
        for (int i = 0; i < measured.phases().size(); i++) {
            double success = measured.row(measured.phases().get(i)).map(GatlingStats.Row::successPercent).orElse(0.0);
            points.add(new double[] {i + 1, success});
        }
        return new Line(measured.mode().name(), points);
    }

    /** The 1-minute load average from /proc/loadavg, or "?". */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(line -> line.startsWith("model name"))
                    .map(line -> line.substring(line.indexOf(':') + 1).trim()).findFirst().orElse("unknown CPU");
        } catch (IOException e) {
            return "unknown CPU";
        }
    }

    private static String pinning(int cpu) {
        return cpu < 0 ? "not pinned (too few CPUs to keep server and client apart)" : "pinned to CPU " + cpu + " (taskset)";
    }

    static String percent(double value) {
        if (Double.isNaN(value)) return "—";
        if (value == 100) return "100";
        return String.format(Locale.ROOT, "%.2f", Math.min(value, 99.99));
    }

    static String whole(double value) {
        return Double.isNaN(value) ? "—" : group(Math.round(value));
    }

    static String millis(double value) {
        if (Double.isNaN(value)) return "—";
        return value < 10 ? String.format(Locale.ROOT, "%.1f", value) : group(Math.round(value));
    }

    /** 15000 → "15 000", as the tables of bench/RESULTS.md write thousands. */
    static String group(long value) {
        return String.format(Locale.ROOT, "%,d", value).replace(',', ' ');
    }
}
