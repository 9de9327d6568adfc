package keel.lab.scenario;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The lines every report starts its set-up with: the machine's CPUs, the JDK, the lab JVM's GC, and
 * where the servers and the load run. The lab JVM may itself be pinned to one CPU, so the machine's
 * CPUs are read from {@code /sys/devices/system/cpu/online}, not from the JVM.
 */
public final class Machine {
    private Machine() {
    }

    public static List<String> lines(int serverCpu, int clientCpu) {
        String pinning = serverCpu >= 0 && clientCpu >= 0
                ? "pinned: servers on CPU " + serverCpu + ", the lab JVM (load driver, scrapes) on CPU " + clientCpu
                : "not pinned: servers and load share every CPU (fewer than 2 CPUs, or no taskset)";
        return List.of(
                "machine: " + cpus() + " CPUs, " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                "JDK: " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + "), lab JVM GC: " + gc(),
                pinning);
    }

    /** Online CPUs of the machine (not only those this JVM may run on). */
    public static int cpus() {
        try {
            int count = 0;
            for (String range : Files.readString(Path.of("/sys/devices/system/cpu/online")).trim().split(",")) {
                String[] ends = range.split("-");
                count += ends.length == 1 ? 1 : Integer.parseInt(ends[1]) - Integer.parseInt(ends[0]) + 1;
            }
            return count;
        } catch (IOException | RuntimeException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    /** The garbage collectors of this JVM, by their MXBean names. */
    public static String gc() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName).collect(Collectors.joining(", "));
    }
}
