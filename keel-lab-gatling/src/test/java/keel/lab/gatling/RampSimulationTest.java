package keel.lab.gatling;

import keel.lab.gatling.RampSimulation.Phase;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RampSimulationTest {

    @Test
    void readsEachInjectionKindFromItsSpec() {
        List<Phase> phases = Phase.parseAll("start:rampUsers:1000:10; plateau:constantUsersPerSec:200:20;climb:rampUsersPerSec:200:800:20");

        assertThat(phases).containsExactly(
                new Phase("start", "rampUsers", 1000, 1000, 10),
                new Phase("plateau", "constantUsersPerSec", 200, 200, 20),
                new Phase("climb", "rampUsersPerSec", 200, 800, 20));
        assertThat(phases).extracting(Phase::users).containsExactly(1000L, 4000L, 10000L);
    }

    @Test
    void refusesSpecsItCannotRun() {
        assertThatThrownBy(() -> Phase.parse("start:rampUsers:10")).hasMessageContaining("bad phase");
        assertThatThrownBy(() -> Phase.parse("start:atOnceUsers:10:1")).hasMessageContaining("unknown injection 'atOnceUsers'");
        assertThatThrownBy(() -> Phase.parse("climb:rampUsersPerSec:1:1")).hasMessageContaining("takes two rates");
        assertThatThrownBy(() -> Phase.parse("a b:rampUsers:10:1")).hasMessageContaining("bad phase name");
        assertThatThrownBy(() -> Phase.parse("start:rampUsers:10:0")).hasMessageContaining("positive duration");
        assertThatThrownBy(() -> Phase.parseAll(" ; ")).hasMessageContaining("no phases");
    }

    @Test
    void eachPhaseBecomesItsOpenInjectionStep() {
        // Gatling builds scenarios and protocols only inside a run, so this checks the steps alone.
        List<Phase> phases = Phase.parseAll("start:rampUsers:10:1;plateau:constantUsersPerSec:5:2;climb:rampUsersPerSec:5:10:1");

        assertThat(phases).extracting(phase -> phase.step().asScala().getClass().getSimpleName())
                .containsExactly("RampOpenInjection", "ConstantRateOpenInjection", "RampRateOpenInjection");
    }

    @Test
    void simulationNeedsItsProperties() {
        assertThatThrownBy(RampSimulation::new).hasMessageContaining("keel.baseUrl is required");
    }
}
