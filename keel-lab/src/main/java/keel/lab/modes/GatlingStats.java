package keel.lab.modes;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Gatling's own per-request statistics, read from the statistics table of its report's
 * {@code index.html}. Since Gatling 3.14 the report keeps them there only (older versions also wrote
 * {@code js/stats.js}). The simulation names each request after its phase, so each row is a phase.
 * Columns are found by their header text, not their position.
 */
final class GatlingStats {
    private static final Pattern HEADER = Pattern.compile("<th id=\"col-(\\d+)\"[^>]*>\\s*<span>(?:<abbr[^>]*>)?([^<]+)");
    private static final Pattern ROW = Pattern.compile("<tr id=\"([^\"]+)\"[^>]*>(.*?)</tr>", Pattern.DOTALL);
    private static final Pattern NAME = Pattern.compile("class=\"ellipsed-name\">([^<]*)<");
    private static final Pattern CELL = Pattern.compile("<td class=\"value [a-z]+ col-(\\d+)\">([^<]*)</td>");

    private GatlingStats() {
    }

    /**
     * One row of the table: a phase, or "All Requests". Times in milliseconds over every request of
     * the row, failed ones included (NaN where Gatling shows none).
     */
    record Row(String name, long requests, long ok, long ko, double p50, double p95, double p99, double max, double mean) {
        double successPercent() {
            return requests == 0 ? Double.NaN : 100.0 * ok / requests;
        }
    }

    /** The rows in the report's order, "All Requests" first; throws when the table is not there. */
    static List<Row> parse(String indexHtml) {
        Map<String, Integer> columns = new HashMap<>();
        Matcher header = HEADER.matcher(indexHtml);
        while (header.find()) columns.putIfAbsent(header.group(2).trim(), Integer.parseInt(header.group(1)));
        for (String needed : List.of("Total", "OK", "KO", "50th pct", "95th pct", "99th pct", "Max", "Mean")) {
            if (!columns.containsKey(needed)) throw new IllegalArgumentException("Gatling report has no statistics column '" + needed + "'");
        }
        List<Row> rows = new ArrayList<>();
        Matcher row = ROW.matcher(indexHtml);
        while (row.find()) {
            Matcher name = NAME.matcher(row.group(2));
            if (!name.find()) continue;
            Map<Integer, String> cells = new HashMap<>();
            Matcher cell = CELL.matcher(row.group(2));
            while (cell.find()) cells.put(Integer.parseInt(cell.group(1)), cell.group(2).trim());
            if (cells.isEmpty()) continue;
            rows.add(new Row(name.group(1).trim(), count(cells, columns, "Total"), count(cells, columns, "OK"), count(cells, columns, "KO"),
                    millis(cells, columns, "50th pct"), millis(cells, columns, "95th pct"), millis(cells, columns, "99th pct"),
                    millis(cells, columns, "Max"), millis(cells, columns, "Mean")));
        }
        if (rows.isEmpty()) throw new IllegalArgumentException("Gatling report has no statistics rows");
        return rows;
    }

    private static long count(Map<Integer, String> cells, Map<String, Integer> columns, String column) {
        String text = cells.getOrDefault(columns.get(column), "-");
        return text.equals("-") ? 0 : Long.parseLong(text.replace(",", ""));
    }

    private static double millis(Map<Integer, String> cells, Map<String, Integer> columns, String column) {
        String text = cells.getOrDefault(columns.get(column), "-");
        return text.equals("-") ? Double.NaN : Double.parseDouble(text.replace(",", ""));
    }
}
