package keel.lab.scenario;

import java.nio.file.Path;
import java.util.List;

/**
 * What a scenario is given: its output folder, whether this is a {@code --quick} run (short phases,
 * fewer modes), and the CPUs to pin the server and the load generator to (-1 when the machine has too
 * few to keep them apart).
 *
 * @param out       this scenario's folder ({@code DIR/<scenario>}), created
 * @param quick     short phases and fewer modes (the whole lab in under five minutes)
 * @param serverCpu CPU for Keel's JVMs, or -1
 * @param clientCpu CPU for load generators, or -1
 * @param configs   keel.yaml files given with {@code --config}: for {@code modes}, each one is a mode
 *                  (its servers start with {@code --config FILE}) in place of the built-in ones
 */
public record LabRun(Path out, boolean quick, int serverCpu, int clientCpu, List<Path> configs) {
    public LabRun {
        configs = List.copyOf(configs);
    }

    public LabRun(Path out, boolean quick, int serverCpu, int clientCpu) {
        this(out, quick, serverCpu, clientCpu, List.of());
    }
}
