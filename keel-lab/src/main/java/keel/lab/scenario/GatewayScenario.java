package keel.lab.scenario;

import keel.http.client.ClientRequest;
import keel.lab.measure.LoadResult;
import keel.lab.measure.MetricsSampler;
import keel.lab.report.Figures;
import keel.lab.report.Figures.Cell;
import keel.lab.report.ScenarioResult;
import keel.lab.report.TableBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * {@code gateway}: {@code POST /gateway/publish} to RabbitMQ, waiting for the broker's confirm, in
 * the four gateway modes: V1 publishes on the event loop (the failure), V2 on the worker pool, V3
 * async (no thread waits for the confirm), V4 on virtual threads. Skipped, with the reason as its
 * summary, when no broker answers on 127.0.0.1:5672 or this build has no gateway.
 */
public final class GatewayScenario implements Scenario {
    static final String GATEWAY_CLASS = "keel.amqp.gateway.Gateway";
    static final String QUEUE = "keel.lab.gateway";
    static final List<String[]> MODES = List.of(new String[]{"V1 event-loop", "event-loop"}, new String[]{"V2 worker-pool", "worker-pool"},
            new String[]{"V3 async", "async"}, new String[]{"V4 virtual-thread", "virtual-thread"});
    /**
     * One loop on the server's one CPU (two would take turns on it, each waiting out the other's time
     * slice), probed every 10 ms so the lag p99 of a run rests on thousands of samples.
     */
    static final List<String> SERVER_FLAGS = List.of("--loops", "1", "--lag-probe-interval", "10ms");

    @Override
    public String name() {
        return "gateway";
    }

    @Override
    public ScenarioResult run(LabRun run) throws Exception {
        String title = "Gateway: publishing to RabbitMQ, V1–V4";
        if (!Broker.answers()) return ScenarioResult.skipped(name(), title, "no broker answers on " + Broker.HOST + ":" + Broker.PORT + " (bin/keel services up starts one)");
        if (!JavaMain.available(GATEWAY_CLASS)) return ScenarioResult.skipped(name(), title, "not built: " + GATEWAY_CLASS + " is not on the classpath");
        int users = run.quick() ? 50 : 200;
        Duration duration = Duration.ofSeconds(run.quick() ? 3 : 15);
        int repeats = run.quick() ? 1 : 2;
        List<LoadRun> runs = new ArrayList<>();
        List<long[]> delivered = new ArrayList<>(); // per run: 202s, messages the run added to the queue (-1: unknown), broker connection losses
        for (int repeat = 1; repeat <= repeats; repeat++) {
            for (String[] mode : MODES) {
                Broker.purge(QUEUE); // fails, harmlessly, before the first run declared the queue
                long before = Broker.depth(QUEUE);
                List<String> flags = new ArrayList<>(List.of("--gateway-mode", mode[1], "--gateway-routing-key", QUEUE));
                flags.addAll(SERVER_FLAGS);
                try (KeelProcess server = ServerUnderLoad.start(run, mode[1] + "-" + repeat, flags.toArray(String[]::new))) {
                    String uri = server.uri("/gateway/publish").toString();
                    LoadRun measured = ServerUnderLoad.measure(server, mode[0], users, duration, Duration.ofSeconds(10),
                            user -> ClientRequest.post(uri, "{\"device\":\"lab-" + user + "\",\"temperature\":21.5}").header("Routing-Key", QUEUE));
                    runs.add(measured);
                    long after = before < 0 ? -1 : Broker.depth(QUEUE);
                    delivered.add(new long[]{measured.load().succeeded(), after < 0 ? -1 : after - before, brokerDrops(server)});
                }
            }
        }
        Broker.purge(QUEUE); // leave the broker as empty as it was
        return result(runs, delivered, users, duration, repeats, title);
    }

    private ScenarioResult result(List<LoadRun> runs, List<long[]> delivered, int users, Duration duration, int repeats, String title) {
        TableBuilder table = new TableBuilder("POST /gateway/publish, " + users + " users",
                "mode", "req/s", "202/s", "p50 ms", "p99 ms", "max ms", "success %", "errors", "loop lag p99 ms", "watchdog", "202s", "on the queue", "lost",
                "broker drops");
        long lostTotal = 0;
        for (String[] mode : MODES) {
            List<Integer> at = new ArrayList<>();
            for (int i = 0; i < runs.size(); i++) if (runs.get(i).mode().equals(mode[0])) at.add(i);
            List<LoadRun> of = at.stream().map(runs::get).toList();
            long accepted = at.stream().mapToLong(i -> delivered.get(i)[0]).sum();
            boolean counted = at.stream().allMatch(i -> delivered.get(i)[1] >= 0);
            long queued = at.stream().mapToLong(i -> Math.max(0, delivered.get(i)[1])).sum();
            long lost = counted ? Math.max(0, accepted - queued) : 0;
            lostTotal += lost;
            table.row(Cell.text(mode[0]), LoadRun.client(of, LoadResult::requestsPerSecond), LoadRun.client(of, GatewayScenario::acceptedPerSecond),
                    LoadRun.client(of, LoadResult::p50Ms), LoadRun.client(of, LoadResult::p99Ms),
                    LoadRun.client(of, LoadResult::maxMs), LoadRun.client(of, LoadResult::successPercent),
                    LoadRun.errors(of), LoadRun.server(of, MetricsSampler.Interval::lagP99Ms), LoadRun.server(of, MetricsSampler.Interval::blocked),
                    Cell.number(accepted), counted ? Cell.number(queued) : Cell.text("n/a (no rabbitmqctl)"), counted ? Cell.number(lost) : Cell.text("–"),
                    Cell.number(at.stream().mapToLong(i -> delivered.get(i)[2]).sum()));
        }
        List<String> summary = List.of(
                "V1 (publish on the loop): " + figure(runs, "V1 event-loop", r -> acceptedPerSecond(r.load())) + " accepted (202) per second, success "
                        + figure(runs, "V1 event-loop", r -> r.load().successPercent()) + " %, loop lag p99 "
                        + figure(runs, "V1 event-loop", r -> r.server(MetricsSampler.Interval::lagP99Ms)) + " ms, caught by the watchdog "
                        + figure(runs, "V1 event-loop", r -> r.server(MetricsSampler.Interval::blocked)) + " times",
                "V2–V4: " + figure(runs, "V2 worker-pool", r -> acceptedPerSecond(r.load())) + " / " + figure(runs, "V3 async", r -> acceptedPerSecond(r.load()))
                        + " / " + figure(runs, "V4 virtual-thread", r -> acceptedPerSecond(r.load())) + " accepted per second, success "
                        + figure(runs, "V2 worker-pool", r -> r.load().successPercent()) + " / " + figure(runs, "V3 async", r -> r.load().successPercent())
                        + " / " + figure(runs, "V4 virtual-thread", r -> r.load().successPercent()) + " %",
                "confirmed messages missing from the queue: " + lostTotal + drops(delivered));
        return new ScenarioResult(name(), title, summary,
                List.of("broker: RabbitMQ on " + Broker.HOST + ":" + Broker.PORT + " (shares this machine); queue " + QUEUE + ", purged before each run; "
                                + "its depth before and after the run (rabbitmqctl) gives the messages the run put there; lost = 202s − those",
                        "load: Keel's HTTP client in this JVM, " + users + " users (closed model) POSTing a small JSON for " + duration.toSeconds()
                                + " s, request timeout 10 s; each answer waits for the broker's confirm (202)",
                        "server: bin/keel serve --gateway-mode <mode> " + String.join(" ", SERVER_FLAGS) + ", a fresh cold JVM per row and repeat; GC " + ServerUnderLoad.gcs(runs),
                        "repeats: " + repeats + " per row, median (min–max); no broker fault on purpose here (bench/gateway.sh raises the memory alarm), "
                                + "but the broker is shared: broker drops counts event=broker_connection_lost in each server's log"),
                List.of(table.build()), LoadCharts.of("gateway", runs), Map.of(), false);
    }

    /** The times the server's log says its broker connection was lost (the broker is shared: others' tests may close it). */
    private static long brokerDrops(KeelProcess server) {
        try (var lines = Files.lines(server.log())) {
            return lines.filter(line -> line.contains("event=broker_connection_lost")).count();
        } catch (IOException | UncheckedIOException e) {
            return -1;
        }
    }

    private static String drops(List<long[]> delivered) {
        long drops = delivered.stream().mapToLong(d -> Math.max(0, d[2])).sum();
        return drops == 0 ? "" : "; the broker dropped the gateway's connection " + drops + " time(s) during the runs (5xx meanwhile)";
    }

    /** 202s per second of the run: every answer per second times the 2xx share. */
    static double acceptedPerSecond(LoadResult load) {
        return load.requestsPerSecond() * load.successPercent() / 100;
    }

    private static String figure(List<LoadRun> runs, String mode, ToDoubleFunction<LoadRun> figure) {
        return Figures.format(LoadRun.median(runs, mode, figure));
    }
}
