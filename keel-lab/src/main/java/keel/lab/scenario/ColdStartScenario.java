package keel.lab.scenario;

import keel.lab.report.ScenarioResult;

/** {@code cold-start}: not written yet. */
public final class ColdStartScenario implements Scenario {
    @Override
    public String name() {
        return "cold-start";
    }

    @Override
    public ScenarioResult run(LabRun run) {
        return ScenarioResult.skipped(name(), name(), "not written yet");
    }
}
