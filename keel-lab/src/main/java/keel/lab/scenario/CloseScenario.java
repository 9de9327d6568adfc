package keel.lab.scenario;

import keel.lab.report.ScenarioResult;

/** {@code close}: not written yet. */
public final class CloseScenario implements Scenario {
    @Override
    public String name() {
        return "close";
    }

    @Override
    public ScenarioResult run(LabRun run) {
        return ScenarioResult.skipped(name(), name(), "not written yet");
    }
}
