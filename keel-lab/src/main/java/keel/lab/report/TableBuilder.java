package keel.lab.report;

import keel.lab.report.Figures.Cell;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Builds a {@link ScenarioResult.Table} row by row from cells, keeping display text and numbers side by side. */
public final class TableBuilder {
    private final String title;
    private final List<String> columns;
    private final List<List<String>> rows = new ArrayList<>();
    private final List<List<Double>> values = new ArrayList<>();

    public TableBuilder(String title, String... columns) {
        this.title = title;
        this.columns = List.of(columns);
    }

    /** Adds a row; it must have one cell per column. */
    public TableBuilder row(Cell... cells) {
        if (cells.length != columns.size()) {
            throw new IllegalArgumentException(title + ": a row of " + cells.length + " cells for " + columns.size() + " columns");
        }
        rows.add(Arrays.stream(cells).map(Cell::text).toList());
        values.add(Arrays.stream(cells).map(Cell::value).toList());
        return this;
    }

    public boolean isEmpty() {
        return rows.isEmpty();
    }

    public ScenarioResult.Table build() {
        return new ScenarioResult.Table(title, columns, List.copyOf(rows), List.copyOf(values));
    }
}
