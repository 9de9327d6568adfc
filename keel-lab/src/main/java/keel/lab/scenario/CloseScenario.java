package keel.lab.scenario;

import keel.lab.report.Figures;
import keel.lab.report.Figures.Cell;
import keel.lab.report.ScenarioResult;
import keel.lab.report.TableBuilder;

import java.util.ArrayList;
import java.util.Arrays;
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
        try (KeelProcess server = ServerUnderLoad.start(run, "http-server")) {
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
        return new ScenarioResult(name(), "Close storms: lost answers and resets", summary,
                List.of("HTTP: one fresh cold server (bin/keel serve, default execution); connections from this JVM (blocking sockets on virtual threads) "
                                + "all released at once; GET /benchmark/hello each",
                        "RSTs: nstat -asz TcpExtTCPAbortOnData TcpExtTCPAbortOnClose before and after each storm; machine-wide counters, "
                                + "so other processes' resets count too; \"answers lost\" = no complete 200 read by the client",
                        "answer: from sending the request to the answer's last byte; EOF: from the answer's last byte to the server's FIN (only where the server closes)"),
                List.of(http.build()), List.of(), Map.of(), false);
    }

    private static Cell pct(List<HttpCloseStorm.Outcome> outcomes, double percentile, ToDoubleFunction<HttpCloseStorm.Outcome> figure) {
        double[] sorted = outcomes.stream().mapToDouble(figure).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (sorted.length == 0) return Cell.text("–");
        int index = (int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(percentile / 100 * sorted.length) - 1));
        return Cell.number(sorted[index]);
    }
}
