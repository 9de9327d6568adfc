package keel.lab.modes;

import keel.lab.report.ScenarioResult;
import keel.lab.scenario.LabRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ModesScenarioTest {

    @Test
    void isSkippedWithAReasonWhenTheGatlingModuleIsNotBuilt(@TempDir Path home) throws Exception {
        String previous = System.getProperty("keel.home");
        System.setProperty("keel.home", home.toString());
        try {
            ScenarioResult result = new ModesScenario().run(new LabRun(home.resolve("out"), true, -1, -1));

            assertThat(result.skipped()).isTrue();
            assertThat(result.scenario()).isEqualTo("modes");
            assertThat(result.summary()).containsExactly("skipped: keel-lab-gatling is not built under " + home.resolve("keel-lab-gatling/target")
                    + " (bin/keel builds it; or mvn -B -DskipTests package -pl keel-lab-gatling -am)");
        } finally {
            if (previous == null) System.clearProperty("keel.home");
            else System.setProperty("keel.home", previous);
        }
    }

    @Test
    void everyModeRunsEveryRouteOfItsRun() {
        assertThat(Mode.ALL).extracting(Mode::name)
                .containsExactly("nio-event-loop", "nio-worker-pool", "nio-virtual-thread", "blocking-platform", "blocking-virtual");
        assertThat(Workload.of(false)).extracting(Workload::name).containsExactly("hello", "cpu", "latency");
        assertThat(Workload.of(true)).extracting(Workload::name).containsExactly("hello", "latency");
        // at most 80 requests of 100 ms in flight: within the worker pool (200) and the blocking platform threads (150)
        assertThat(Workload.LATENCY.full()).allSatisfy(phase -> assertThat(phase.peakRate() * 0.1).isLessThanOrEqualTo(80));
    }

    @Test
    void eachConfigFileIsAModeNamedAfterItThatServesWithThatFile(@TempDir Path dir) throws Exception {
        Path workers = Files.writeString(dir.resolve("latency-on-workers.yaml"), """
                routes:
                  - path: /benchmark/latency
                    execution: worker-pool
                """);
        Path blocking = Files.writeString(dir.resolve("blocking.yml"), "server:\n  transport: blocking\n");
        assertThat(List.of(Mode.of(workers), Mode.of(blocking))).containsExactly(
                new Mode("latency-on-workers", List.of("--config", workers.toAbsolutePath().toString()), true, false),
                new Mode("blocking", List.of("--config", blocking.toAbsolutePath().toString()), false, false));

        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(keel.lab.scenario.LabCommand.run(List.of("modes", "--config", dir.resolve("absent.yaml").toString()),
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err))).isEqualTo(2);
        assertThat(err.toString()).contains("--config " + dir.resolve("absent.yaml") + ": no such file");
        err.reset();
        assertThat(keel.lab.scenario.LabCommand.run(List.of("close", "--config", workers.toString()),
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err))).isEqualTo(2);
        assertThat(err.toString()).contains("--config is for the modes scenario");
    }
}
