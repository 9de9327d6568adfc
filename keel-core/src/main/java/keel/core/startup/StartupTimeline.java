package keel.core.startup;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.RuntimeMXBean;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Where this process's start went, phase by phase: the launcher, the JVM up to {@code main}, then
 * each phase the application and the server {@link #mark} as they finish, up to the open port.
 * A start is the whole JVM's, so the timeline is one per JVM: it records between {@link #begin} (the
 * application's first line) and {@link #end} (the port is open), at most {@value #MAX_PHASES}
 * phases; marks outside that window (a warm-up run by a test, a server started later) are ignored.
 *
 * <p>Thread contract: any thread may mark; a phase's time runs from the previous mark, whichever
 * thread made it, so phases are meant to be marked by the thread that starts the application.
 */
public final class StartupTimeline {
    /** Enough for every phase of {@code bin/keel serve} several times over; later marks are dropped. */
    public static final int MAX_PHASES = 64;
    /** Linux's USER_HZ, the unit of {@code /proc/self/stat}'s start time, on every architecture the JDK runs on. */
    private static final long TICKS_PER_SECOND = 100;

    /**
     * One phase: its name, how long it took, and when it ended, counted from the JVM's start.
     * The launcher's phase (before the JVM started) ends at zero.
     */
    public record Phase(String name, Duration took, Duration endedAt) {
    }

    private static final List<Phase> phases = new ArrayList<>();
    /** {@link System#nanoTime} at the JVM's start (estimated from its uptime); 0 before {@link #begin}. */
    private static long jvmStartNanos;
    private static long lastMarkNanos;
    private static boolean recording;

    private StartupTimeline() {
    }

    /**
     * Starts the timeline, from {@code main}'s first lines: records the launcher's time (from the
     * process's start, when a launcher script exec'd the JVM in its own process, to the JVM's), the
     * JVM's from its start to now, and what reading the JVM's start time cost (the management
     * classes). Later calls do nothing.
     */
    public static synchronized void begin() {
        if (jvmStartNanos != 0) return;
        long entered = System.nanoTime();
        RuntimeMXBean runtime = ManagementFactory.getRuntimeMXBean();
        long uptimeMillis = runtime.getUptime();
        long now = System.nanoTime();
        jvmStartNanos = now - Duration.ofMillis(uptimeMillis).toNanos();
        lastMarkNanos = now;
        recording = true;
        long launcherMillis = processAgeMillis().orElse(uptimeMillis) - uptimeMillis;
        phases.add(new Phase("launcher (before the JVM)", Duration.ofMillis(Math.max(0, launcherMillis)), Duration.ZERO));
        Duration toMain = Duration.ofNanos(Math.max(0, entered - jvmStartNanos));
        phases.add(new Phase("JVM start to main", toMain, toMain));
        phases.add(new Phase("reading the JVM's start (management classes)", Duration.ofNanos(now - entered), Duration.ofNanos(now - jvmStartNanos)));
    }

    /**
     * How long ago this process started, from Linux's {@code /proc} (clock ticks of 10 ms; the
     * JDK's {@code ProcessHandle.Info.startInstant} is only as precise as the boot time's second).
     * Empty elsewhere.
     */
    private static OptionalLong processAgeMillis() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            // Fields after the command's closing parenthesis start at field 3; starttime is field 22.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long startTicks = Long.parseLong(fields[22 - 3]);
            double uptimeSeconds = Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
            return OptionalLong.of(Math.round(uptimeSeconds * 1000) - startTicks * 1000 / TICKS_PER_SECOND);
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /** Records that {@code phase} ended now; it began at the previous mark. Ignored outside {@link #begin}..{@link #end}. */
    public static synchronized void mark(String phase) {
        if (!recording || phases.size() >= MAX_PHASES) return;
        long now = System.nanoTime();
        phases.add(new Phase(phase, Duration.ofNanos(now - lastMarkNanos), Duration.ofNanos(now - jvmStartNanos)));
        lastMarkNanos = now;
    }

    /** Stops recording: the start is over. */
    public static synchronized void end() {
        recording = false;
    }

    /** True between {@link #begin} and {@link #end}: a mark now is recorded. */
    public static synchronized boolean isRecording() {
        return recording;
    }

    /** The phases recorded so far, in order. */
    public static synchronized List<Phase> phases() {
        return List.copyOf(phases);
    }

    /** The phases as a table for people: each phase's time and when it ended, from the JVM's start. */
    public static String report() {
        List<Phase> recorded = phases();
        StringBuilder text = new StringBuilder("startup timeline (ms; 'at' counts from the JVM's start):\n");
        text.append(padded("took", 10)).append(padded("at", 9)).append("  phase\n");
        for (Phase phase : recorded) {
            text.append(padded(millis(phase.took()), 10)).append(padded(millis(phase.endedAt()), 9)).append("  ").append(phase.name()).append('\n');
        }
        Duration launcher = recorded.isEmpty() ? Duration.ZERO : recorded.getFirst().took();
        Duration last = recorded.isEmpty() ? Duration.ZERO : recorded.getLast().endedAt();
        text.append(padded(millis(launcher.plus(last)), 10)).append(padded("", 9)).append("  total, from the launch\n");
        return text.toString();
    }

    /** The phases on one line, {@code name=ms} pairs, for a log. */
    public static String summary() {
        StringBuilder line = new StringBuilder();
        for (Phase phase : phases()) {
            if (!line.isEmpty()) line.append(", ");
            line.append(phase.name()).append('=').append(millis(phase.took()));
        }
        return line.toString();
    }

    /**
     * Milliseconds with one decimal, written by hand: {@code String.format} would load the locale's
     * number symbols, tens of ms of CPU that (printed once the port is open) the first requests
     * would wait for on a single CPU.
     */
    static String millis(Duration duration) {
        long tenths = Math.round(duration.toNanos() / 1e5);
        return (tenths < 0 ? "-" : "") + Math.abs(tenths) / 10 + "." + Math.abs(tenths) % 10;
    }

    private static String padded(String text, int width) {
        return " ".repeat(Math.max(0, width - text.length())) + text;
    }
}
