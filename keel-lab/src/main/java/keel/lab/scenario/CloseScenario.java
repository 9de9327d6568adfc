package keel.lab.scenario;

import keel.lab.report.Figures;
import keel.lab.report.Figures.Cell;
import keel.lab.report.ScenarioResult;
import keel.lab.report.TableBuilder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * {@code close}: close storms. HTTP: many connections at once, each one request and its answer, then
 * a close by the client, by the server, or by the server with request bytes it never read (where a
 * careless close sends RST and loses the answer). Counted: lost answers, client-side resets, and the
 * kernel's RST counters (nstat) around each storm; timed: request→answer and answer→EOF.
 */
public final class CloseScenario implements Scenario {
    static final String WS_DRIVER = "keel.lab.WsCloseBench";

    @Override
    public String name() {
        return "close";
    }

    @Override
    public ScenarioResult run(LabRun run) throws Exception {
        int connections = run.quick() ? 200 : 1000;
        int rounds = run.quick() ? 1 : 3;
        TableBuilder http = new TableBuilder("HTTP close storm: " + connections + " connections at once, " + rounds + " round(s)",
                "variant", "connections", "answers lost", "client resets", "server RSTs (AbortOnData)", "AbortOnClose",
                "answer p50 ms", "answer p99 ms", "answer max ms", "EOF p50 ms", "EOF p99 ms", "EOF max ms");
        long lostTotal = 0;
        double rstTotal = 0;
        String gc;
        try (KeelProcess server = ServerUnderLoad.start(run, "http-server")) {
            gc = server.gc();
            for (HttpCloseStorm.Variant variant : HttpCloseStorm.Variant.values()) {
                List<HttpCloseStorm.Outcome> all = new ArrayList<>();
                double onData = 0;
                double onClose = 0;
                for (int r = 0; r < rounds; r++) {
                    Map<String, Long> before = Nstat.read();
                    all.addAll(HttpCloseStorm.run(server.port(), connections, variant));
                    Thread.sleep(300); // lingering closes finish draining before the counters are read
                    Map<String, Long> after = Nstat.read();
                    onData += Nstat.delta(before, after, "TcpExtTCPAbortOnData");
                    onClose += Nstat.delta(before, after, "TcpExtTCPAbortOnClose");
                }
                long lost = all.stream().filter(o -> !o.answered()).count();
                long resets = all.stream().filter(HttpCloseStorm.Outcome::reset).count();
                lostTotal += lost;
                rstTotal += Double.isNaN(onData) ? 0 : onData;
                http.row(Cell.text(variant.label), Cell.number(all.size()), Cell.number(lost), Cell.number(resets), Cell.number(onData),
                        Cell.number(onClose), pct(all, 50, HttpCloseStorm.Outcome::answerMs), pct(all, 99, HttpCloseStorm.Outcome::answerMs),
                        pct(all, 100, HttpCloseStorm.Outcome::answerMs), pct(all, 50, HttpCloseStorm.Outcome::eofMs),
                        pct(all, 99, HttpCloseStorm.Outcome::eofMs), pct(all, 100, HttpCloseStorm.Outcome::eofMs));
            }
        }
        List<String> summary = new ArrayList<>();
        summary.add("HTTP: " + lostTotal + " answer(s) lost and " + Figures.format(rstTotal) + " server RST(s) with unread data over "
                + 3 * rounds * connections + " connections closed in storms");
        List<ScenarioResult.Table> tables = new ArrayList<>(List.of(http.build()));
        if (JavaMain.available(WS_DRIVER)) {
            int sessions = run.quick() ? 500 : 5000;
            TableBuilder ws = new TableBuilder("WebSocket close storm: " + sessions + " sessions, 100 at once (one request, answer, close)",
                    "driver", "sessions", "answers lost", "abnormal closes", "server RSTs (AbortOnData)", "AbortOnClose",
                    "answer p50 ms", "answer p99 ms", "answer max ms", "close p50 ms", "close p99 ms", "close max ms");
            summary.add(webSocket(run, sessions, ws));
            tables.add(ws.build());
        } else {
            summary.add("WebSocket storm not run: " + WS_DRIVER + " is not on the classpath");
        }
        return new ScenarioResult(name(), "Close storms: lost answers and resets", summary,
                List.of("HTTP: one fresh cold server (bin/keel serve, default execution, GC " + gc + "); connections from this JVM (blocking sockets on virtual threads) "
                                + "all released at once; GET /benchmark/hello each",
                        "RSTs: nstat -asz TcpExtTCPAbortOnData TcpExtTCPAbortOnClose before and after each storm; machine-wide counters, "
                                + "so other processes' resets count too; \"answers lost\" = no complete 200 read by the client",
                        "answer: from sending the request to the answer's last byte; EOF: from the answer's last byte to the server's FIN (only where the server closes)",
                        "WebSocket: " + WS_DRIVER + " (as bench/ws-close.sh runs it) in a fresh JVM on the client CPU, against a fresh server "
                                + "(--loops 2); each session opens /ws/fib, sends one request, waits for the answer and closes at once; "
                                + "300 warm-up sessions first, not counted; close = from close() to the server's Close"),
                tables, List.of(), Map.of(), false);
    }

    /** Both driver styles against one fresh server; the summary line. */
    private static String webSocket(LabRun run, int sessions, TableBuilder table) throws Exception {
        long lost = 0;
        long abnormal = 0;
        try (KeelProcess server = ServerUnderLoad.start(run, "ws-server", "--loops", "2")) {
            for (String style : List.of("sync", "async")) {
                Map<String, Long> before = Nstat.read();
                Map<String, String> r = JavaMain.run(run, run.out().resolve("ws-" + style + ".log"), Duration.ofMinutes(3), "mode", WS_DRIVER,
                        "ws://127.0.0.1:" + server.port() + "/ws/fib", Integer.toString(sessions), "100", style);
                Thread.sleep(300);
                Map<String, Long> after = Nstat.read();
                lost += (long) JavaMain.number(r, "lost");
                abnormal += (long) JavaMain.number(r, "abnormal_closes");
                table.row(Cell.text(style), Cell.number(JavaMain.number(r, "clients")), Cell.number(JavaMain.number(r, "lost")),
                        Cell.number(JavaMain.number(r, "abnormal_closes")), Cell.number(Nstat.delta(before, after, "TcpExtTCPAbortOnData")),
                        Cell.number(Nstat.delta(before, after, "TcpExtTCPAbortOnClose")), Cell.number(JavaMain.number(r, "answer_p50_ms")),
                        Cell.number(JavaMain.number(r, "answer_p99_ms")), Cell.number(JavaMain.number(r, "answer_max_ms")),
                        Cell.number(JavaMain.number(r, "close_p50_ms")), Cell.number(JavaMain.number(r, "close_p99_ms")),
                        Cell.number(JavaMain.number(r, "close_max_ms")));
            }
        }
        return "WebSocket: " + lost + " answer(s) lost and " + abnormal + " abnormal close(s) over " + 2 * sessions + " sessions";
    }

    private static Cell pct(List<HttpCloseStorm.Outcome> outcomes, double percentile, ToDoubleFunction<HttpCloseStorm.Outcome> figure) {
        double[] sorted = outcomes.stream().mapToDouble(figure).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (sorted.length == 0) return Cell.text("–");
        int index = (int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(percentile / 100 * sorted.length) - 1));
        return Cell.number(sorted[index]);
    }
}
