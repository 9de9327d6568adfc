package keel.lab.modes;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs {@code keel.lab.gatling.RampSimulation} in a JVM of its own, pinned to the client CPU, from
 * the {@code keel-lab-gatling} module's jar and copied classpath ({@code target/lib}). Gatling stays
 * off the lab's own classpath.
 */
final class GatlingRunner {
    static final String SIMULATION = "keel.lab.gatling.RampSimulation";

    private final Path jar;
    private final Path lib;
    private final String version;

    private GatlingRunner(Path jar, Path lib, String version) {
        this.jar = jar;
        this.lib = lib;
        this.version = version;
    }

    /**
     * Finds the module under the project root: {@code -Dkeel.home} (bin/keel sets it), else the
     * folder three levels above this class's jar ({@code keel-lab/target/keel-lab-….jar}) or classes.
     * Empty, with {@code why} filled in, when it is not built.
     */
    static Optional<GatlingRunner> locate(StringBuilder why) {
        Optional<Path> home = home();
        if (home.isEmpty()) {
            why.append("cannot tell the project root (run through bin/keel, or set -Dkeel.home)");
            return Optional.empty();
        }
        Path target = home.get().resolve("keel-lab-gatling/target");
        Path lib = target.resolve("lib");
        Optional<Path> jar = firstMatching(target, "keel-lab-gatling-", ".jar");
        Optional<Path> core = firstMatching(lib, "gatling-core-", ".jar");
        if (jar.isEmpty() || core.isEmpty()) {
            why.append("keel-lab-gatling is not built under ").append(target)
                    .append(" (bin/keel builds it; or mvn -B -DskipTests package -pl keel-lab-gatling -am)");
            return Optional.empty();
        }
        String name = core.get().getFileName().toString();
        return Optional.of(new GatlingRunner(jar.get(), lib, name.substring("gatling-core-".length(), name.length() - 4)));
    }

    String version() {
        return version;
    }

    /** The Gatling JVM's options besides the classpath and the simulation's properties. */
    List<String> jvmOptions() {
        return List.of("-Xms256m", "-Xmx1g",
                "--add-opens=java.base/java.lang=ALL-UNNAMED", // Gatling's log writer reads String internals
                "-XX:+AutoCreateSharedArchive", "-XX:SharedArchiveFile=" + jar.getParent().resolve("gatling-cds.jsa"),
                "-Dgatling.data.enableAnalytics=false");
    }

    /**
     * Runs the phases against {@code base + target}, writing the report under {@code resultsFolder}
     * and Gatling's console to {@code log}; returns the report's folder (the one holding index.html).
     */
    Path run(URI base, String target, List<Phase> phases, int cpu, Path resultsFolder, Path log)
            throws IOException, InterruptedException {
        Files.createDirectories(resultsFolder);
        List<String> command = new ArrayList<>();
        if (cpu >= 0) command.addAll(List.of("taskset", "-c", Integer.toString(cpu)));
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmOptions());
        command.add("-Dkeel.baseUrl=" + base);
        command.add("-Dkeel.route=" + target);
        command.add("-Dkeel.phases=" + phases.stream().map(Phase::spec).collect(Collectors.joining(";")));
        command.addAll(List.of("-cp", jar + java.io.File.pathSeparator + lib.resolve("*"),
                "io.gatling.app.Gatling", "-s", SIMULATION, "-rf", resultsFolder.toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            long injecting = phases.stream().mapToLong(Phase::seconds).sum();
            // Phases, then Gatling's 60 s request timeout for the last requests, then start-up and the report.
            if (!process.waitFor(injecting + 60 + 60, TimeUnit.SECONDS)) throw new IOException("Gatling did not finish; see " + log);
            if (process.exitValue() != 0) throw new IOException("Gatling exited with " + process.exitValue() + "; see " + log);
        } finally {
            if (process.isAlive()) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        }
        try (Stream<Path> reports = Files.list(resultsFolder)) {
            return reports.filter(folder -> Files.isRegularFile(folder.resolve("index.html")))
                    .max((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()))
                    .orElseThrow(() -> new IOException("Gatling wrote no report under " + resultsFolder + "; see " + log));
        }
    }

    private static Optional<Path> home() {
        String property = System.getProperty("keel.home");
        if (property != null && !property.isBlank()) return Optional.of(Path.of(property));
        try {
            var source = GatlingRunner.class.getProtectionDomain().getCodeSource();
            if (source == null) return Optional.empty();
            Path location = Path.of(source.getLocation().toURI()); // keel-lab/target/keel-lab-….jar or keel-lab/target/classes
            Path root = location.getParent() == null ? null : location.getParent().getParent();
            return root == null || root.getParent() == null ? Optional.empty() : Optional.of(root.getParent());
        } catch (URISyntaxException | SecurityException e) {
            return Optional.empty();
        }
    }

    private static Optional<Path> firstMatching(Path folder, String prefix, String suffix) {
        if (!Files.isDirectory(folder)) return Optional.empty();
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(file -> {
                String name = file.getFileName().toString();
                return name.startsWith(prefix) && name.endsWith(suffix) && !name.endsWith("-sources.jar");
            }).sorted().findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
