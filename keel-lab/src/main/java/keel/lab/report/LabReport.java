package keel.lab.report;

import java.util.List;

/**
 * A whole lab run: when it started, how long it took, the machine, and every scenario's result (in
 * the order they ran). {@code DIR/results.json} holds it; {@code bin/keel lab compare} reads it back.
 *
 * @param started  UTC start, ISO-8601
 * @param seconds  wall time of the run
 * @param machine  the machine lines every scenario's set-up also starts with
 * @param results  one per scenario, failed and skipped ones included
 */
public record LabReport(String started, double seconds, List<String> machine, List<ScenarioResult> results) {
}
