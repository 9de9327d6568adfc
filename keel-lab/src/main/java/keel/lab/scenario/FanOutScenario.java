package keel.lab.scenario;

import keel.lab.report.ScenarioResult;

/** {@code fan-out}: not written yet. */
public final class FanOutScenario implements Scenario {
    @Override
    public String name() {
        return "fan-out";
    }

    @Override
    public ScenarioResult run(LabRun run) {
        return ScenarioResult.skipped(name(), name(), "not written yet");
    }
}
