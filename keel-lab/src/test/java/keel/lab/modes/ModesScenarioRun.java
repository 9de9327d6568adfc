package keel.lab.modes;

import keel.lab.report.ScenarioResult;
import keel.lab.scenario.LabRun;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A development tool, not a test: runs the modes scenario and prints its result as text, until
 * {@code bin/keel lab modes} does it with the lab's reports. From the project root, after a build:
 * <pre>
 * java -cp "keel-lab/target/test-classes:keel-lab/target/keel-lab-0.1.0-SNAPSHOT.jar:keel-lab/target/lib/*" \
 *     -Dkeel.home=$PWD keel.lab.modes.ModesScenarioRun OUT_DIR [--quick] [SERVER_CPU CLIENT_CPU]
 * </pre>
 */
public final class ModesScenarioRun {
    private ModesScenarioRun() {
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "target/lab/modes");
        boolean quick = List.of(args).contains("--quick");
        List<String> numbers = List.of(args).stream().filter(arg -> arg.matches("-?\\d+")).toList();
        int serverCpu = numbers.size() == 2 ? Integer.parseInt(numbers.get(0)) : 0;
        int clientCpu = numbers.size() == 2 ? Integer.parseInt(numbers.get(1)) : 1;
        Files.createDirectories(out);
        long started = System.nanoTime();
        ScenarioResult result = new ModesScenario().run(new LabRun(out, quick, serverCpu, clientCpu));
        System.out.print(text(result));
        System.out.printf("(took %.0f s)%n", (System.nanoTime() - started) / 1e9);
    }

    static String text(ScenarioResult result) {
        StringBuilder text = new StringBuilder("# " + result.title() + "\n\n");
        result.summary().forEach(line -> text.append(line).append("\n"));
        text.append("\n");
        result.setup().forEach(line -> text.append("- ").append(line).append("\n"));
        for (ScenarioResult.Table table : result.tables()) {
            text.append("\n### ").append(table.title()).append("\n\n| ").append(String.join(" | ", table.columns())).append(" |\n|");
            table.columns().forEach(column -> text.append(" --- |"));
            text.append("\n");
            table.rows().forEach(row -> text.append("| ").append(String.join(" | ", row)).append(" |\n"));
        }
        text.append("\n");
        for (ScenarioResult.Chart chart : result.charts()) {
            text.append("chart: ").append(chart.title()).append(" —");
            chart.lines().forEach(line -> text.append(" ").append(line.name()).append(" (").append(line.points().size()).append(" points)"));
            text.append("\n");
        }
        result.links().forEach((name, link) -> text.append("link: ").append(name).append(" → ").append(link).append("\n"));
        return text.toString();
    }
}
