package keel.lab.scenario;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a driver's {@code main} in a fresh JVM (this JVM's java and classpath), pinned to the client
 * CPU when there is one, and reads the one line of {@code key=value} pairs it prints: the bench
 * drivers ({@code ColdStartProbe}, {@code WsCloseBench}) report that way.
 */
final class JavaMain {
    private JavaMain() {
    }

    /** True when {@code className} is on this JVM's classpath. */
    static boolean available(String className) {
        try {
            Class.forName(className, false, JavaMain.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * Runs {@code className args…}, its output in {@code log}; the pairs of the first output line
     * that starts with {@code firstKey=}. Throws when it runs past {@code timeout} or prints no such line.
     */
    static Map<String, String> run(LabRun run, Path log, Duration timeout, String firstKey, String className, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if (run.clientCpu() >= 0) command.addAll(List.of("taskset", "-c", Integer.toString(run.clientCpu())));
        command.addAll(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp", System.getProperty("java.class.path"), className));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
                throw new IOException(className + " ran over " + timeout.toSeconds() + " s (log: " + log + ")");
            }
        } finally {
            process.destroyForcibly();
        }
        String line = Files.readAllLines(log).stream().filter(l -> l.startsWith(firstKey + "=")).findFirst()
                .orElseThrow(() -> new IOException(className + " printed no " + firstKey + "=… line (exit " + process.exitValue() + ", log: " + log + ")"));
        Map<String, String> pairs = new LinkedHashMap<>();
        for (String pair : line.trim().split("\\s+")) {
            String[] kv = pair.split("=", 2);
            if (kv.length == 2) pairs.put(kv[0], kv[1]);
        }
        return pairs;
    }

    /** A pair's value as a number, NaN when missing or not a number. */
    static double number(Map<String, String> pairs, String key) {
        try {
            return Double.parseDouble(pairs.getOrDefault(key, "NaN"));
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}
