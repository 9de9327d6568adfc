package keel.lab.scenario;

import keel.lab.report.LabReport;
import keel.lab.report.ResultsJson;
import keel.lab.report.ScenarioResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class LabRunnerTest {
    @TempDir
    Path dir;

    /** A scenario that throws, or answers one summary line. */
    record Fixed(String name, boolean fails) implements Scenario {
        @Override
        public ScenarioResult run(LabRun run) {
            if (fails) throw new IllegalStateException("broker went away\nsecond line");
            return new ScenarioResult(name, "Title " + name, List.of("all good"), List.of("load: none"), List.of(), List.of(), Map.of(), false);
        }
    }

    @Test
    void aScenarioThatThrowsBecomesAFailedResultAndTheRunGoesOn() throws Exception {
        PrintStream progress = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        LabReport report = new LabRunner(dir, true, -1, -1, progress).run(List.of(new Fixed("first", true), new Fixed("second", false)));

        assertThat(report.results()).extracting(ScenarioResult::scenario).containsExactly("first", "second");
        assertThat(report.results().getFirst().summary()).containsExactly("failed: IllegalStateException: broker went away");
        assertThat(LabRunner.isFailed(report.results().getFirst())).isTrue();
        assertThat(LabRunner.isFailed(report.results().get(1))).isFalse();
        assertThat(report.results().get(1).setup()).first().asString().startsWith("machine: ");
        assertThat(report.results().get(1).setup()).contains("load: none").last().asString().startsWith("took ");
        assertThat(dir.resolve("first/report.md")).content().startsWith("# first (`first`)\n\n**failed: IllegalStateException: broker went away**");
        assertThat(dir.resolve("second/results.json")).exists();
        assertThat(Files.readString(dir.resolve("index.html"))).contains("<section id=\"first\" class=\"failed\">", "<section id=\"second\" class=\"ran\">");
        assertThat(ResultsJson.read(dir.resolve("results.json"))).hasSize(2);
    }

    @Test
    void theModesScenarioIsFoundByClassNameOrReportedNotBuilt() throws Exception {
        Scenario missing = Scenarios.byClassName("modes", "keel.lab.modes.NoSuchScenario");
        ScenarioResult result = missing.run(new LabRun(dir, true, -1, -1));
        assertThat(result.skipped()).isTrue();
        assertThat(result.summary()).containsExactly("skipped: not built: keel.lab.modes.NoSuchScenario is not on the classpath");
        assertThat(Scenarios.byClassName("x", FakeScenario.class.getName())).isInstanceOf(FakeScenario.class);
    }

    @Test
    void compareAndUsageFromTheCommandLine() throws Exception {
        ResultsJson.write(dir.resolve("a.json"), new ScenarioResult("s", "S", List.of(), List.of(),
                List.of(new ScenarioResult.Table("t", List.of("mode", "req/s"), List.of(List.of("m", "10")), List.of(List.of(Double.NaN, 10.0)))),
                List.of(), Map.of(), false));
        ResultsJson.write(dir.resolve("b.json"), new ScenarioResult("s", "S", List.of(), List.of(),
                List.of(new ScenarioResult.Table("t", List.of("mode", "req/s"), List.of(List.of("m", "15")), List.of(List.of(Double.NaN, 15.0)))),
                List.of(), Map.of(), false));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = LabCommand.run(List.of("compare", dir.resolve("a.json").toString(), dir.resolve("b.json").toString()),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).containsPattern("m +req/s +10 +15 +1.50");

        assertThat(LabCommand.run(List.of("nope"), new PrintStream(out), new PrintStream(err, true, StandardCharsets.UTF_8))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown scenario 'nope'");
    }

    /** A scenario with a public no-arg constructor, as keel.lab.modes.ModesScenario has. */
    public static final class FakeScenario implements Scenario {
        @Override
        public String name() {
            return "x";
        }

        @Override
        public ScenarioResult run(LabRun run) {
            return ScenarioResult.skipped("x", "x", "fake");
        }
    }
}
