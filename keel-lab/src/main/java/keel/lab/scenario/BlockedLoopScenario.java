package keel.lab.scenario;

import keel.lab.measure.LoadResult;
import keel.lab.measure.MetricsSampler;
import keel.lab.report.Figures;
import keel.lab.report.Figures.Cell;
import keel.lab.report.ScenarioResult;
import keel.lab.report.TableBuilder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code blocked-loop}: a handler that blocks its thread for 50 ms ({@code /benchmark/latency?ms=50})
 * under each execution, the same wait written async on the event loop, and the event loop with the
 * watchdog's {@code offload}. On the loop, Little's law caps it at loops × 20 req/s and the loop lag
 * grows to seconds; off the loop the cap is users ÷ 50 ms.
 */
public final class BlockedLoopScenario implements Scenario {
    static final int BLOCK_MS = 50;
    static final int LOOPS = 2;
    static final int WORKER_THREADS = 200;

    /** A row: its name, the path it loads and the server's flags. */
    record Mode(String name, String path, List<String> flags) {
        int bound(int users) {
            int parallel = switch (name) {
                case "event-loop" -> LOOPS;
                case "worker-pool" -> Math.min(users, WORKER_THREADS);
                default -> users;
            };
            return parallel * 1000 / BLOCK_MS;
        }
    }

    static final List<Mode> MODES = List.of(
            new Mode("event-loop", "/benchmark/latency?ms=" + BLOCK_MS, List.of("--execution", "event-loop")),
            new Mode("worker-pool", "/benchmark/latency?ms=" + BLOCK_MS, List.of("--execution", "worker-pool", "--worker-threads", "" + WORKER_THREADS)),
            new Mode("virtual-thread", "/benchmark/latency?ms=" + BLOCK_MS, List.of("--execution", "virtual-thread")),
            new Mode("async (event-loop)", "/benchmark/latency-async?ms=" + BLOCK_MS, List.of("--execution", "event-loop")),
            new Mode("event-loop + offload", "/benchmark/latency?ms=" + BLOCK_MS, List.of("--execution", "event-loop", "--on-blocked", "offload")));

    @Override
    public String name() {
        return "blocked-loop";
    }

    @Override
    public ScenarioResult run(LabRun run) throws Exception {
        int users = 200;
        Duration duration = Duration.ofSeconds(run.quick() ? 4 : 20);
        Duration timeout = Duration.ofSeconds(10);
        int repeats = run.quick() ? 1 : 3;
        List<LoadRun> runs = new ArrayList<>();
        for (int repeat = 1; repeat <= repeats; repeat++) {
            for (Mode mode : MODES) {
                List<String> flags = new ArrayList<>(mode.flags());
                flags.addAll(List.of("--loops", "" + LOOPS));
                String log = mode.name().replaceAll("[^a-z]+", "-").replaceAll("-$", "") + "-" + repeat;
                runs.add(ServerUnderLoad.measure(run, mode.name(), log, users, duration, timeout,
                        mode.path(), flags.toArray(String[]::new)));
            }
        }
        return result(runs, users, duration, timeout, repeats);
    }

    private ScenarioResult result(List<LoadRun> runs, int users, Duration duration, Duration timeout, int repeats) {
        TableBuilder table = new TableBuilder("A " + BLOCK_MS + " ms blocking handler, " + users + " users",
                "mode", "req/s", "p50 ms", "p99 ms", "max ms", "errors", "success %", "loop lag p99 ms", "loop lag max ms",
                "watchdog", "bound req/s", "JVM threads peak");
        for (Mode mode : MODES) {
            List<LoadRun> of = runs.stream().filter(r -> r.mode().equals(mode.name())).toList();
            table.row(Cell.text(mode.name()), LoadRun.client(of, LoadResult::requestsPerSecond), LoadRun.client(of, LoadResult::p50Ms),
                    LoadRun.client(of, LoadResult::p99Ms), LoadRun.client(of, LoadResult::maxMs),
                    LoadRun.errors(of),
                    LoadRun.client(of, LoadResult::successPercent), LoadRun.server(of, MetricsSampler.Interval::lagP99Ms),
                    LoadRun.server(of, MetricsSampler.Interval::lagMaxMs), LoadRun.server(of, MetricsSampler.Interval::blocked),
                    Cell.number(mode.bound(users)), Cell.spread(of.stream().mapToDouble(LoadRun::peakThreads).toArray()));
        }
        return new ScenarioResult(name(), "A blocked event loop, and each way out", summary(runs, users),
                List.of("load: Keel's HTTP client in this JVM, closed model: " + users + " users (one connection each) for "
                                + duration.toSeconds() + " s, request timeout " + timeout.toSeconds() + " s; a fresh, cold JVM per row and repeat (no warm-up)",
                        "server: bin/keel serve --loops " + LOOPS + " with each row's flags; GC " + ServerUnderLoad.gcs(runs),
                        "repeats: " + repeats + " per row; figures are the median (min–max) over repeats; charts show the first repeat",
                        "latency: client-side, send to last byte; loop lag and watchdog from the growth of keel_event_loop_lag_seconds "
                                + "and keel_event_loop_blocked_total over the run (lag p99 interpolated in its bucket, the highest of the loops)",
                        "bound: Little's law, users ÷ " + BLOCK_MS + " ms (loops × " + 1000 / BLOCK_MS + " req/s on the event loop, "
                                + WORKER_THREADS + " threads for the worker pool)"),
                List.of(table.build()), LoadCharts.of("blocked-loop", runs), Map.of(), false);
    }

    private List<String> summary(List<LoadRun> runs, int users) {
        double loopRate = LoadRun.median(runs, "event-loop", r -> r.load().requestsPerSecond());
        double loopLag = LoadRun.median(runs, "event-loop", r -> r.server(MetricsSampler.Interval::lagP99Ms));
        double offRate = LoadRun.median(runs, "virtual-thread", r -> r.load().requestsPerSecond());
        double asyncRate = LoadRun.median(runs, "async (event-loop)", r -> r.load().requestsPerSecond());
        double offload = LoadRun.median(runs, "event-loop + offload", r -> r.load().requestsPerSecond());
        double detections = LoadRun.median(runs, "event-loop + offload", r -> r.server(MetricsSampler.Interval::blocked));
        return List.of(
                "blocking on the event loop: " + Figures.format(loopRate) + " req/s (bound " + MODES.getFirst().bound(users)
                        + "), loop lag p99 " + Figures.format(loopLag) + " ms",
                "off the loop: " + Figures.format(offRate) + " req/s on virtual threads, " + Figures.format(asyncRate)
                        + " req/s async on the loop (bound " + MODES.get(2).bound(users) + ")",
                "offload: the watchdog caught the route " + Figures.format(detections) + " time(s), then " + Figures.format(offload) + " req/s");
    }
}
