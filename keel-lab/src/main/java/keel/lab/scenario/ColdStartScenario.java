package keel.lab.scenario;

import keel.lab.report.Figures;
import keel.lab.report.Figures.Cell;
import keel.lab.report.ScenarioResult;
import keel.lab.report.TableBuilder;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * {@code cold-start}: what warm-up buys a fresh JVM. Server: launch to port open, to the first 200,
 * and the first request's latency against the median of the next 100 (each on a new connection, as
 * curl would), with {@code --warmup true} and {@code false}. Client: {@code keel.lab.ColdStartProbe}
 * in a fresh JVM calls a warm upstream once and then 100 more times, with and without
 * {@code RequestPathWarmup.client(client, upstream)}.
 */
public final class ColdStartScenario implements Scenario {
    static final String PROBE = "keel.lab.ColdStartProbe";
    static final int CALLS = 100;
    static final String ROUTE = "/benchmark/json";

    /** One server start: milliseconds from launch to port, to first 200; first request and the median after. */
    record ServerStart(double portMs, double first200Ms, double firstMs, double medianMs, String gc) {
    }

    @Override
    public String name() {
        return "cold-start";
    }

    @Override
    public ScenarioResult run(LabRun run) throws Exception {
        int repeats = run.quick() ? 1 : 3;
        TableBuilder server = new TableBuilder("Server: a fresh JVM's first request on " + ROUTE + " vs the next " + CALLS,
                "warm-up", "port ms", "first 200 ms", "first ms", "median ms", "first/median");
        List<String> summary = new ArrayList<>();
        List<String> gcs = new ArrayList<>();
        for (boolean warmup : List.of(false, true)) {
            List<ServerStart> starts = new ArrayList<>();
            for (int r = 1; r <= repeats; r++) starts.add(serverStart(run, warmup, r));
            starts.stream().map(ServerStart::gc).filter(gc -> !gcs.contains(gc)).forEach(gcs::add);
            server.row(Cell.text(warmup ? "on" : "off"), spread(starts, ServerStart::portMs), spread(starts, ServerStart::first200Ms),
                    spread(starts, ServerStart::firstMs), spread(starts, ServerStart::medianMs), spread(starts, s -> s.firstMs() / s.medianMs()));
            summary.add("server, warm-up " + (warmup ? "on" : "off") + ": first request " + Figures.format(median(starts, ServerStart::firstMs))
                    + " ms vs " + Figures.format(median(starts, ServerStart::medianMs)) + " ms steady ("
                    + Figures.format(median(starts, s -> s.firstMs() / s.medianMs())) + "×), first 200 after "
                    + Figures.format(median(starts, ServerStart::first200Ms)) + " ms");
        }
        List<ScenarioResult.Table> tables = new ArrayList<>(List.of(server.build()));
        List<String> setup = new ArrayList<>(List.of(
                "server: bin/keel serve --warmup on|off in a fresh JVM per row and repeat; the port is polled with a TCP connect every 2 ms "
                        + "and the first GET " + ROUTE + " goes out the moment it opens; server GC " + String.join(", ", gcs),
                "requests: each on a new connection with Connection: close, one after the other, from this JVM (like curl); "
                        + "latency from connect to the end of the answer",
                "repeats: " + repeats + " fresh JVM(s) per row; figures are the median (min–max)"));
        if (JavaMain.available(PROBE)) {
            TableBuilder client = new TableBuilder("Client: a fresh JVM's first call to a warm upstream vs the next " + CALLS,
                    "warm-up", "first ms", "median ms", "p90 ms", "first/median", "warm-up ms");
            clientRows(run, repeats, client, summary);
            tables.add(client.build());
            setup.add("client: " + PROBE + " in a fresh JVM (pinned to the client CPU) calls POST /upstream/refine-address on a warm "
                    + "bin/keel serve --upstream-delay 0ms, with RequestPathWarmup.client(client, upstream) or without");
        } else {
            summary.add("client half not run: " + PROBE + " is not on the classpath");
        }
        return new ScenarioResult(name(), "Cold start: the first request after a start, warm-up on and off", summary, setup, tables,
                List.of(firstRequestBars(tables)), Map.of(), false);
    }

    /** One bar per row of every table: the first request's latency in ms (log scale is not used for bars). */
    private static ScenarioResult.Chart firstRequestBars(List<ScenarioResult.Table> tables) {
        List<ScenarioResult.Line> bars = new ArrayList<>();
        for (ScenarioResult.Table table : tables) {
            int first = table.columns().indexOf("first ms");
            String side = table.title().startsWith("Server") ? "server" : "client";
            for (int r = 0; r < table.rows().size(); r++) {
                bars.add(new ScenarioResult.Line(side + ", warm-up " + table.rows().get(r).getFirst(),
                        List.<double[]>of(new double[]{0, table.values().get(r).get(first)})));
            }
        }
        return new ScenarioResult.Chart("cold-start: the first request's latency", "bar", "", "first request ms", bars);
    }

    private ServerStart serverStart(LabRun run, boolean warmup, int repeat) throws IOException, InterruptedException {
        try (KeelProcess keel = KeelProcess.launch(run.out().resolve("server-warmup-" + warmup + "-" + repeat + ".log"), run.serverCpu(),
                List.of(), "--warmup", Boolean.toString(warmup))) {
            long deadline = System.nanoTime() + ServerUnderLoad.READY.toNanos();
            while (!keel.isListening()) {
                if (System.nanoTime() - deadline > 0) throw new IOException("port not open within " + ServerUnderLoad.READY.toSeconds() + " s:\n" + keel.tail());
                Thread.sleep(2);
            }
            double portMs = keel.nanosSinceStart() / 1e6;
            OneShot.Answer first = OneShot.get(keel.port(), ROUTE, 30_000);
            while (first.status() != 200) {
                if (System.nanoTime() - deadline > 0) throw new IOException("no 200 from " + ROUTE + ": last status " + first.status());
                first = OneShot.get(keel.port(), ROUTE, 30_000);
            }
            double first200Ms = keel.nanosSinceStart() / 1e6;
            double[] next = new double[CALLS];
            for (int i = 0; i < CALLS; i++) next[i] = OneShot.get(keel.port(), ROUTE, 30_000).millis();
            Arrays.sort(next);
            return new ServerStart(portMs, first200Ms, first.millis(), Figures.median(next), keel.gc());
        }
    }

    private void clientRows(LabRun run, int repeats, TableBuilder table, List<String> summary) throws IOException, InterruptedException {
        try (KeelProcess upstream = ServerUnderLoad.start(run, "upstream", "--upstream-delay", "0ms", "--warmup", "true")) {
            String url = upstream.uri("/upstream/refine-address").toString();
            for (int i = 0; i < 300; i++) OneShot.post(upstream.port(), "/upstream/refine-address", "{\"street\":\"1 Main St\"}", 10_000);
            for (boolean warmup : List.of(false, true)) {
                List<Map<String, Double>> probes = new ArrayList<>();
                for (int r = 1; r <= repeats; r++) probes.add(probe(run, url, warmup, r));
                table.row(Cell.text(warmup ? "on" : "off"), ms(probes, "first_us"), ms(probes, "median_us"), ms(probes, "p90_us"),
                        Cell.spread(probes.stream().mapToDouble(p -> p.get("first_us") / p.get("median_us")).toArray()),
                        Cell.spread(probes.stream().mapToDouble(p -> p.get("warmup_ms")).toArray()));
                summary.add("client, warm-up " + (warmup ? "on" : "off") + ": first call " + ms(probes, "first_us").text() + " ms vs "
                        + ms(probes, "median_us").text() + " ms steady");
            }
        }
    }

    /** Runs the probe in a fresh JVM; its {@code key=value} line as numbers. */
    private static Map<String, Double> probe(LabRun run, String url, boolean warmup, int repeat) throws IOException, InterruptedException {
        Map<String, String> pairs = JavaMain.run(run, run.out().resolve("client-warmup-" + warmup + "-" + repeat + ".log"),
                Duration.ofSeconds(60), "first_us", PROBE, url, Boolean.toString(warmup), Integer.toString(CALLS));
        Map<String, Double> figures = new HashMap<>();
        for (String key : pairs.keySet()) figures.put(key, JavaMain.number(pairs, key));
        return figures;
    }

    private static Cell ms(List<Map<String, Double>> probes, String key) {
        return Cell.spread(probes.stream().mapToDouble(p -> p.getOrDefault(key, Double.NaN) / 1000).toArray());
    }

    private static Cell spread(List<ServerStart> starts, ToDoubleFunction<ServerStart> figure) {
        return Cell.spread(starts.stream().mapToDouble(figure).toArray());
    }

    private static double median(List<ServerStart> starts, ToDoubleFunction<ServerStart> figure) {
        return spread(starts, figure).value();
    }
}
