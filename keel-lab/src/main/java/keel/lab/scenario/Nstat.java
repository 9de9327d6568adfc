package keel.lab.scenario;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The kernel's TCP abort counters, read with {@code nstat -asz} (absolute values, history left
 * alone). They count for the whole machine, so a delta includes whatever else ran meanwhile.
 */
final class Nstat {
    static final List<String> COUNTERS = List.of("TcpExtTCPAbortOnData", "TcpExtTCPAbortOnClose");

    private Nstat() {
    }

    /** Counter → value, or an empty map when nstat is missing or fails. */
    static Map<String, Long> read() throws InterruptedException {
        Map<String, Long> values = new HashMap<>();
        try {
            Process nstat = new ProcessBuilder(List.of("nstat", "-asz", COUNTERS.get(0), COUNTERS.get(1))).redirectErrorStream(true).start();
            String out = new String(nstat.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!nstat.waitFor(10, TimeUnit.SECONDS) || nstat.exitValue() != 0) return Map.of();
            for (String line : out.split("\n")) {
                String[] parts = line.trim().split("\\s+");
                if (parts.length >= 2 && COUNTERS.contains(parts[0])) values.put(parts[0], Long.parseLong(parts[1]));
            }
        } catch (IOException | NumberFormatException e) {
            return Map.of();
        }
        return values;
    }

    /** {@code after - before} for {@code counter}, NaN when either read lacks it. */
    static double delta(Map<String, Long> before, Map<String, Long> after, String counter) {
        Long a = before.get(counter);
        Long b = after.get(counter);
        return a == null || b == null ? Double.NaN : b - a;
    }
}
