package keel.lab.modes;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ModesReportTest {
    private static final Mode WORKER_POOL = Mode.ALL.get(1);

    private static ModesScenario.Measured measured(String report, List<Phase> phases) throws IOException {
        return new ModesScenario.Measured(WORKER_POOL, Workload.LATENCY, false, phases, GatlingStats.parse(GatlingStatsTest.resource(report)),
                new Timeline(TimelineTest.beforeAndAfter(), "/benchmark/latency"), 1.5, "gatling/x/index.html", null);
    }

    @Test
    void firstLineNamesEachPhaseThatLostRequests() throws IOException {
        var run = measured("gatling-3.15.1-with-ko.html", List.of(Phase.rampUsers("start", 10, 1), Phase.constantUsersPerSec("burst", 40, 2)));

        assertThat(ModesReport.summary(List.of(run), 1, 1, false)).containsExactly(
                "Not 100 % in every mode (90 requests, 1 mode × 1 route): nio-worker-pool latency start: lost 2 of 10 (80.00 % success); "
                        + "nio-worker-pool latency burst: lost 61 of 80 (23.75 % success)",
                "Server side: 63 requests shed with 503; event-loop lag p99 over a whole run at most 189 ms (worst nio mode and route).");
    }

    @Test
    void firstLineSaysSoWhenEveryRequestSucceeded() throws IOException {
        var run = measured("gatling-3.15.1-all-ok.html", List.of(Phase.rampUsers("start", 100, 2), Phase.constantUsersPerSec("plateau", 100, 2),
                Phase.rampUsersPerSec("climb", 100, 300, 2)));

        assertThat(ModesReport.summary(List.of(run, run), 2, 1, true).getFirst())
                .isEqualTo("100 % success in every mode (1 400 requests, 2 modes × 1 route)");
    }

    @Test
    void aPhaseGatlingCutShortIsALossToo() throws IOException {
        var run = measured("gatling-3.15.1-all-ok.html", List.of(Phase.rampUsers("start", 100, 2), Phase.constantUsersPerSec("plateau", 100, 2),
                Phase.rampUsersPerSec("climb", 100, 500, 2)));

        assertThat(ModesReport.summary(List.of(run), 1, 1, false).getFirst()).endsWith("climb: sent only 400 of 600 requests");
    }

    @Test
    void aFailedRunIsALoss() {
        var failed = new ModesScenario.Measured(WORKER_POOL, Workload.HELLO, false, Workload.HELLO.quick(), List.of(),
                new Timeline(List.of(), "/benchmark/hello"), Double.NaN, null, "IOException: Gatling exited with 1");

        assertThat(ModesReport.summary(List.of(failed), 1, 1, false).getFirst())
                .isEqualTo("Not 100 % in every mode (0 requests, 1 mode × 1 route): nio-worker-pool hello: run failed (IOException: Gatling exited with 1)");
    }

    @Test
    void phasesSpellTheirGatlingCall() {
        assertThat(Phase.rampUsersPerSec("climb", 200, 800, 20).injection()).isEqualTo("rampUsersPerSec(200).to(800).during(20 s)");
        assertThat(Phase.rampUsersPerSec("climb", 200, 800, 20).spec()).isEqualTo("climb:rampUsersPerSec:200:800:20");
        assertThat(Phase.constantUsersPerSec("plateau", 2.5, 4).spec()).isEqualTo("plateau:constantUsersPerSec:2.5:4");
        assertThat(Phase.rampUsers("start", 1000, 10).users()).isEqualTo(1000);
        assertThat(Phase.rampUsersPerSec("climb", 200, 800, 20).users()).isEqualTo(10_000);
    }
}
