package keel.lab.scenario;

import keel.lab.report.ScenarioResult;

/** {@code gateway}: not written yet. */
public final class GatewayScenario implements Scenario {
    @Override
    public String name() {
        return "gateway";
    }

    @Override
    public ScenarioResult run(LabRun run) {
        return ScenarioResult.skipped(name(), name(), "not written yet");
    }
}
