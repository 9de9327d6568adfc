package keel.lab.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;

/**
 * {@code bin/keel lab compare A.json B.json}: for every figure both runs have (same scenario, table
 * title, row — matched by its first cell — and column), the ratio B/A. Figures only one run has, or
 * that are not numbers, are left out; a zero in A gives no ratio.
 */
public final class Compare {
    /** One compared figure. */
    public record Ratio(String scenario, String table, String row, String column, double a, double b) {
        public double ratio() {
            return a == 0 ? Double.NaN : b / a;
        }
    }

    private Compare() {
    }

    public static List<Ratio> ratios(List<ScenarioResult> a, List<ScenarioResult> b) {
        Map<String, ScenarioResult> before = new LinkedHashMap<>();
        for (ScenarioResult result : a) before.put(result.scenario(), result);
        List<Ratio> ratios = new ArrayList<>();
        for (ScenarioResult after : b) {
            ScenarioResult previous = before.get(after.scenario());
            if (previous == null) continue;
            for (ScenarioResult.Table table : after.tables()) {
                previous.tables().stream().filter(t -> t.title().equals(table.title())).findFirst()
                        .ifPresent(old -> compareTables(after.scenario(), old, table, ratios));
            }
        }
        return ratios;
    }

    private static void compareTables(String scenario, ScenarioResult.Table a, ScenarioResult.Table b, List<Ratio> out) {
        for (int r = 0; r < b.rows().size(); r++) {
            String rowName = b.rows().get(r).getFirst();
            int oldRow = rowIndex(a, rowName);
            if (oldRow < 0) continue;
            for (int c = 1; c < b.columns().size(); c++) {
                int oldColumn = a.columns().indexOf(b.columns().get(c));
                if (oldColumn < 0) continue;
                double before = value(a, oldRow, oldColumn);
                double after = value(b, r, c);
                if (Double.isNaN(before) || Double.isNaN(after)) continue;
                out.add(new Ratio(scenario, b.title(), rowName, b.columns().get(c), before, after));
            }
        }
    }

    private static int rowIndex(ScenarioResult.Table table, String first) {
        for (int r = 0; r < table.rows().size(); r++) if (table.rows().get(r).getFirst().equals(first)) return r;
        return -1;
    }

    private static double value(ScenarioResult.Table table, int row, int column) {
        if (row >= table.values().size() || column >= table.values().get(row).size()) return Double.NaN;
        Double value = table.values().get(row).get(column);
        return value == null ? Double.NaN : value;
    }

    /** The ratios as text: one block per scenario and table, one line per figure. */
    public static String render(List<Ratio> ratios) {
        if (ratios.isEmpty()) return "no figure appears in both runs\n";
        StringBuilder text = new StringBuilder();
        String heading = null;
        for (Ratio ratio : ratios) {
            String next = ratio.scenario() + " / " + ratio.table();
            if (!next.equals(heading)) {
                heading = next;
                text.append('\n').append(heading).append('\n');
                text.append(String.format(Locale.ROOT, "  %-28s %-22s %12s %12s %8s%n", "row", "column", "A", "B", "B/A"));
            }
            text.append(String.format(Locale.ROOT, "  %-28s %-22s %12s %12s %8s%n", ratio.row(), ratio.column(),
                    Figures.format(ratio.a()), Figures.format(ratio.b()),
                    Double.isNaN(ratio.ratio()) ? "–" : String.format(Locale.ROOT, "%.2f", ratio.ratio())));
        }
        return text.toString();
    }
}
