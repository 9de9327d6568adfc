package keel.lab.scenario;

import keel.lab.report.ScenarioResult;

/** One lab experiment ({@code bin/keel lab <name>}): starts what it compares, drives load, measures, stops it all. */
public interface Scenario {
    /** The CLI word. */
    String name();

    /** Runs the experiment; everything it started is stopped when it returns or throws. */
    ScenarioResult run(LabRun run) throws Exception;
}
