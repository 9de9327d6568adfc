package keel.lab.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ResultsJsonTest {
    @TempDir
    Path dir;

    @Test
    void aRunAndAScenarioReadBackWithTheirFigures() throws Exception {
        ScenarioResult result = Samples.blockedLoop(40, 3950);
        ResultsJson.write(dir.resolve("run.json"), new LabReport("2026-11-21T09:00:00Z", 61.5, List.of("machine: 2 CPUs"),
                List.of(result, ScenarioResult.skipped("gateway", "Gateway", "no broker"))));
        ResultsJson.write(dir.resolve("one.json"), result);

        List<ScenarioResult> run = ResultsJson.read(dir.resolve("run.json"));
        assertThat(run).extracting(ScenarioResult::scenario).containsExactly("blocked-loop", "gateway");
        assertThat(run.getFirst().tables().getFirst().values()).containsExactly(List.of(Double.NaN, 40.0, Double.NaN), List.of(Double.NaN, 3950.0, 2.0));
        assertThat(run.getFirst().charts().getFirst().lines().getFirst().points().get(2)).containsExactly(3, 5000);
        assertThat(run.get(1).skipped()).isTrue();
        assertThat(ResultsJson.read(dir.resolve("one.json")).getFirst().summary()).containsExactly("event loop: 40.0 req/s");
    }

    @Test
    void anotherJsonFileIsRefusedWithItsName() throws Exception {
        Files.writeString(dir.resolve("other.json"), "{\"name\":1}");
        assertThatThrownBy(() -> ResultsJson.read(dir.resolve("other.json"))).hasMessageContaining("other.json: not a lab results file");
    }
}
