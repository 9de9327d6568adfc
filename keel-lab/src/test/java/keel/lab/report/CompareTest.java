package keel.lab.report;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

class CompareTest {
    @Test
    void ratiosOfEveryFigureBothRunsHave() {
        List<Compare.Ratio> ratios = Compare.ratios(List.of(Samples.blockedLoop(40, 4000)), List.of(Samples.blockedLoop(20, 3000)));

        assertThat(ratios).extracting(Compare.Ratio::row, Compare.Ratio::column, Compare.Ratio::a, Compare.Ratio::b, Compare.Ratio::ratio)
                .containsExactly(
                        tuple("event-loop", "req/s", 40.0, 20.0, 0.5),
                        tuple("virtual-thread", "req/s", 4000.0, 3000.0, 0.75),
                        tuple("virtual-thread", "errors", 2.0, 2.0, 1.0));
        assertThat(Compare.render(ratios)).contains("blocked-loop / Throughput").containsPattern("event-loop +req/s +40 +20 +0.50");
    }

    @Test
    void scenariosOrRowsOnlyOneRunHasAreLeftOut() {
        ScenarioResult other = ScenarioResult.skipped("gateway", "Gateway", "no broker");
        assertThat(Compare.ratios(List.of(other), List.of(Samples.blockedLoop(1, 2)))).isEmpty();
        assertThat(Compare.render(List.of())).isEqualTo("no figure appears in both runs\n");
    }
}
