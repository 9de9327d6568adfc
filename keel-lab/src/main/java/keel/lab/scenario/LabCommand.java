package keel.lab.scenario;

import keel.lab.report.Compare;
import keel.lab.report.LabReport;
import keel.lab.report.ResultsJson;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code bin/keel lab …}: runs scenarios and writes their report, or compares two runs. The CPUs to
 * pin to come from {@code KEEL_LAB_SERVER_CPU} and {@code KEEL_LAB_CLIENT_CPU}, which {@code bin/keel}
 * sets when it pinned this JVM to the client CPU (absent: not pinned).
 */
public final class LabCommand {
    private LabCommand() {
    }

    public static int run(List<String> args, PrintStream out, PrintStream err) throws IOException {
        if (args.isEmpty() || args.contains("--help") || args.contains("-h") || args.getFirst().equals("help")) {
            out.print(help());
            return args.isEmpty() ? 2 : 0;
        }
        if (args.getFirst().equals("compare")) return compare(args.subList(1, args.size()), out, err);
        Set<String> names = new LinkedHashSet<>();
        boolean quick = false;
        Path dir = null;
        List<Path> configs = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            switch (arg) {
                case "--quick" -> quick = true;
                case "--out" -> {
                    if (i + 1 >= args.size()) return usage(err, "--out needs a folder");
                    dir = Path.of(args.get(++i));
                }
                case "--config" -> {
                    if (i + 1 >= args.size()) return usage(err, "--config needs a keel.yaml file");
                    Path config = Path.of(args.get(++i));
                    if (!Files.isRegularFile(config)) return usage(err, "--config " + config + ": no such file");
                    configs.add(config.toAbsolutePath());
                }
                case "all" -> names.addAll(Scenarios.NAMES);
                default -> {
                    if (arg.startsWith("-")) return usage(err, "unknown flag '" + arg + "'");
                    if (!Scenarios.NAMES.contains(arg)) return usage(err, "unknown scenario '" + arg + "' (known: " + String.join(", ", Scenarios.NAMES) + ", all)");
                    names.add(arg);
                }
            }
        }
        if (names.isEmpty()) return usage(err, "name a scenario, or all");
        if (!configs.isEmpty() && !names.contains("modes")) return usage(err, "--config is for the modes scenario");
        if (dir == null) dir = Path.of("lab-results", LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        List<Scenario> scenarios = new ArrayList<>();
        for (String name : Scenarios.NAMES) if (names.contains(name)) scenarios.add(Scenarios.create(name));
        LabRunner runner = new LabRunner(dir, quick, cpu("KEEL_LAB_SERVER_CPU"), cpu("KEEL_LAB_CLIENT_CPU"), configs, err);
        LabReport report = runner.run(scenarios);
        out.printf("lab: %d scenario(s) in %.0f s; report: %s%n", report.results().size(), report.seconds(), dir.resolve("index.html"));
        for (var result : report.results()) out.println("  " + result.scenario() + ": " + String.join(" / ", result.summary()));
        return report.results().stream().anyMatch(LabRunner::isFailed) ? 1 : 0;
    }

    private static int compare(List<String> files, PrintStream out, PrintStream err) throws IOException {
        if (files.size() != 2) return usage(err, "compare takes two results.json files: A and B");
        out.print("B/A for every figure in both runs (A = " + files.get(0) + ", B = " + files.get(1) + ")\n");
        out.print(Compare.render(Compare.ratios(ResultsJson.read(Path.of(files.get(0))), ResultsJson.read(Path.of(files.get(1))))));
        return 0;
    }

    private static int cpu(String variable) {
        String value = System.getenv(variable);
        if (value == null || value.isBlank()) return -1;
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static int usage(PrintStream err, String problem) {
        err.println("keel lab: " + problem + " (see 'bin/keel lab --help')");
        return 2;
    }

    static String help() {
        return """
                Usage:
                  bin/keel lab <scenario>… [--quick] [--out DIR]   run scenarios, write DIR/index.html and reports
                  bin/keel lab modes --config A.yaml [--config B.yaml]…
                                                                  modes: one mode per keel.yaml (its routes: section
                                                                  sets each route's execution), instead of the five
                  bin/keel lab all [--quick] [--out DIR]           every scenario, in the order below
                  bin/keel lab compare A.json B.json               B/A for every figure two runs share
                  bin/keel lab --help                              this text

                Scenarios:
                  modes         transport × threads matrix on hello, cpu and latency ramps (Gatling, open model)
                  blocked-loop  a 50 ms blocking handler under each execution, and the watchdog's offload
                  gateway       RabbitMQ publishing V1–V4 (skipped when no broker answers on 127.0.0.1:5672)
                  cold-start    time to first 200 and first request vs steady, warm-up on/off, server and client
                  close         HTTP and WebSocket close storms: lost answers, RSTs (nstat), close latency
                  fan-out       threads and latency of the refine batch and device fan-out per execution

                --quick  short phases, fewer repeats: the whole lab in under 5 minutes on 2 cores
                --out    the report folder (default lab-results/<yyyyMMdd-HHmmss>)
                Each scenario writes DIR/<scenario>/report.md and results.json; DIR/index.html holds all of
                them with charts (one file, opens offline); DIR/results.json is what compare reads.
                """;
    }
}
