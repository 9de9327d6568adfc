package keel.lab.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import keel.http.client.ClientRequest;
import keel.lab.measure.LoadResult;
import keel.lab.report.Figures;
import keel.lab.report.Figures.Cell;
import keel.lab.report.ScenarioResult;
import keel.lab.report.TableBuilder;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * {@code fan-out}: the refine batch (25 orders = 50 upstream calls of 200 ms, 10 at a time) and the
 * device status (5 calls at once) under each execution, written async and blocking; what each
 * answer says about the threads it used, the JVM's thread peak, and a short concurrent load on the
 * device status that shows threads growing under blocking and staying flat under async.
 */
public final class FanOutScenario implements Scenario {
    static final List<String> EXECUTIONS = List.of("event-loop", "worker-pool", "virtual-thread");
    static final List<String> STYLES = List.of("async", "blocking");
    static final int ORDERS = 25;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NOT_ON_LOOP = "n/a (would block the loop)";

    /** One call's figures: client latency, and what the answer reported. */
    record Call(int status, double millis, double elapsedMs, double used, double beyondLoops, String handler, int jvmThreadsPeak) {
    }

    @Override
    public String name() {
        return "fan-out";
    }

    @Override
    public ScenarioResult run(LabRun run) throws Exception {
        int repeats = run.quick() ? 1 : 3;
        int users = 20;
        Duration duration = Duration.ofSeconds(run.quick() ? 3 : 10);
        TableBuilder batch = table("Refine batch: " + ORDERS + " orders = " + 2 * ORDERS + " upstream calls (200 ms each, 10 at a time)");
        TableBuilder devices = table("Device status: 5 upstream calls at once (200 ms each)");
        TableBuilder load = new TableBuilder("Under load: " + users + " users on the device status for " + duration.toSeconds() + " s",
                "execution, style", "req/s", "p50 ms", "p99 ms", "success %", "JVM threads at start", "JVM threads peak");
        List<LoadRun> loads = new ArrayList<>();
        for (String execution : EXECUTIONS) {
            try (KeelProcess server = ServerUnderLoad.start(run, execution, "--execution", execution, "--loops", "2")) {
                // Not measured: the routes set up Jackson's data binding at their first call (about 0.1 s).
                call(server, "/devices/first/status?style=async", null);
                for (String style : STYLES) {
                    String mode = execution + ", " + style;
                    List<Call> batches = new ArrayList<>();
                    List<Call> statuses = new ArrayList<>();
                    for (int r = 0; r < repeats; r++) {
                        batches.add(call(server, "/orders/refine?style=" + style, orders()));
                        statuses.add(call(server, "/devices/d" + r + "/status?style=" + style, null));
                    }
                    row(batch, mode, batches);
                    row(devices, mode, statuses);
                    if (execution.equals("event-loop") && style.equals("blocking")) {
                        load.row(Cell.text(mode), Cell.text(NOT_ON_LOOP), Cell.text("–"), Cell.text("–"), Cell.text("–"),
                                Cell.number(server.threads()), Cell.text("–"));
                        continue;
                    }
                    int before = server.threads();
                    String uri = server.uri("/devices/").toString();
                    LoadRun loaded = ServerUnderLoad.measure(server, mode, users, duration, Duration.ofSeconds(15),
                            user -> ClientRequest.get(uri + "u" + user + "/status?style=" + style));
                    loads.add(loaded);
                    LoadResult l = loaded.load();
                    load.row(Cell.text(mode), Cell.number(l.requestsPerSecond()), Cell.number(l.p50Ms()), Cell.number(l.p99Ms()),
                            Cell.number(l.successPercent()), Cell.number(before), Cell.number(loaded.peakThreads()));
                }
            }
        }
        return new ScenarioResult(name(), "Fan-out: threads used and latency per execution", summary(batch.build(), load.build()),
                List.of("calls: one request at a time on a fresh connection (like curl), " + repeats + " repeat(s) each, after one unmeasured call; "
                                + "figures are the median (min–max); the server's mock upstream answers after 200 ms",
                        "threads used / beyond loops / handler: as the answer reports them (distinct threads that ran the calls "
                                + "and their completions; those not event loops; what ran the handler)",
                        "JVM threads peak: /proc/<pid>/status read every 20 ms during the call; under load, every second",
                        "load: Keel's HTTP client in this JVM, " + users + " users (closed model) on GET /devices/{id}/status for "
                                + duration.toSeconds() + " s",
                        "server: bin/keel serve --execution <row> --loops 2, one fresh cold JVM per execution; GC "
                                + (loads.isEmpty() ? "unknown" : ServerUnderLoad.gcs(loads))),
                List.of(batch.build(), devices.build(), load.build()),
                List.of(LoadCharts.server("fan-out under load: JVM threads over time", "threads", loads, i -> i.peakThreads()),
                        LoadCharts.client("fan-out under load: p99 latency over time (client)", "p99 ms", loads, LoadResult.Second::p99Ms)),
                Map.of(), false);
    }

    private static TableBuilder table(String title) {
        return new TableBuilder(title, "execution, style", "status", "latency ms", "elapsedMs (server)", "threads used",
                "beyond loops", "handler", "JVM threads peak");
    }

    private static void row(TableBuilder table, String mode, List<Call> calls) {
        Call first = calls.getFirst();
        if (first.status() == 400 && mode.startsWith("event-loop, blocking")) {
            table.row(Cell.text(mode), Cell.number(400), Cell.text(NOT_ON_LOOP), Cell.text("–"), Cell.text("–"), Cell.text("–"),
                    Cell.text("–"), Cell.number(first.jvmThreadsPeak()));
            return;
        }
        table.row(Cell.text(mode), Cell.number(first.status()), spread(calls, Call::millis), spread(calls, Call::elapsedMs),
                spread(calls, Call::used), spread(calls, Call::beyondLoops), Cell.text(first.handler()), spread(calls, c -> c.jvmThreadsPeak()));
    }

    private static Cell spread(List<Call> calls, ToDoubleFunction<Call> figure) {
        return Cell.spread(calls.stream().mapToDouble(figure).toArray());
    }

    private static Call call(KeelProcess server, String path, String body) throws IOException, InterruptedException {
        OneShot.Answer answer;
        ThreadPeak peak = ThreadPeak.watch(server);
        try {
            answer = body == null ? OneShot.get(server.port(), path, 30_000) : OneShot.post(server.port(), path, body, 30_000);
        } finally {
            peak.close();
        }
        if (answer.status() != 200) return new Call(answer.status(), answer.millis(), Double.NaN, Double.NaN, Double.NaN, "–", peak.peak());
        JsonNode json = JSON.readTree(answer.body());
        JsonNode threads = json.path("threads");
        return new Call(answer.status(), answer.millis(), json.path("elapsedMs").asDouble(Double.NaN), threads.path("used").asDouble(Double.NaN),
                threads.path("beyondLoops").asDouble(Double.NaN), threads.path("handler").asText("–"), peak.peak());
    }

    static String orders() {
        StringBuilder json = new StringBuilder("[");
        for (int i = 0; i < ORDERS; i++) {
            if (i > 0) json.append(',');
            json.append("{\"id\":\"o").append(i).append("\",\"primary\":{\"street\":\"").append(i).append(" Main St\"},")
                    .append("\"secondary\":{\"street\":\"PO Box ").append(i).append("\"}}");
        }
        return json.append(']').toString();
    }

    /** The verdict from the batch table: threads used by style, latency range, JVM thread growth under load. */
    private static List<String> summary(ScenarioResult.Table batch, ScenarioResult.Table load) {
        double[] asyncUsed = column(batch, 4, "async");
        double[] blockingUsed = column(batch, 4, "blocking");
        double[] latency = column(batch, 2, "");
        double growth = 0;
        for (List<Double> row : load.values()) {
            if (!Double.isNaN(row.get(5)) && !Double.isNaN(row.get(6))) growth = Math.max(growth, row.get(6) - row.get(5));
        }
        return List.of(
                "refine batch (" + 2 * ORDERS + " calls): async used " + range(asyncUsed) + " thread(s), none beyond the loops, under every execution; blocking used "
                        + range(blockingUsed) + " (a thread per call)",
                "batch latency " + range(latency) + " ms in every row that runs: the upstream's 200 ms × 5 waves sets it, not the style",
                "under load the JVM grew by at most " + Figures.format(growth) + " thread(s): blocking calls run on virtual threads, and the worker pool starts its threads up front");
    }

    private static double[] column(ScenarioResult.Table table, int column, String style) {
        List<Double> values = new ArrayList<>();
        for (int r = 0; r < table.rows().size(); r++) {
            if (!table.rows().get(r).getFirst().endsWith(style)) continue;
            Double v = table.values().get(r).get(column);
            if (v != null && !Double.isNaN(v)) values.add(v);
        }
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private static String range(double[] values) {
        double min = Arrays.stream(values).min().orElse(Double.NaN);
        double max = Arrays.stream(values).max().orElse(Double.NaN);
        return min == max ? Figures.format(min) : Figures.format(min) + "–" + Figures.format(max);
    }
}
