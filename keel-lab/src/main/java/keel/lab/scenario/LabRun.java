package keel.lab.scenario;

import java.nio.file.Path;

/**
 * What a scenario is given: its output folder, whether this is a {@code --quick} run (short phases,
 * fewer modes), and the CPUs to pin the server and the load generator to (-1 when the machine has too
 * few to keep them apart).
 *
 * @param out       this scenario's folder ({@code DIR/<scenario>}), created
 * @param quick     short phases and fewer modes (the whole lab in under five minutes)
 * @param serverCpu CPU for Keel's JVMs, or -1
 * @param clientCpu CPU for load generators, or -1
 */
public record LabRun(Path out, boolean quick, int serverCpu, int clientCpu) {
}
