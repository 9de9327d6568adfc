package keel.lab.report;

import java.util.List;
import java.util.Map;

/**
 * {@code <scenario>/report.md}: the title, the summary lines first (the verdict), then how it was
 * measured, then each table, then the links. Charts are in {@code index.html} only.
 */
public final class MarkdownReport {
    private MarkdownReport() {
    }

    public static String render(ScenarioResult result) {
        StringBuilder md = new StringBuilder("# ").append(result.title()).append(" (`").append(result.scenario()).append("`)\n\n");
        for (String line : result.summary()) md.append("**").append(escape(line)).append("**  \n");
        md.append('\n');
        if (!result.setup().isEmpty()) {
            md.append("## Set-up\n\n");
            for (String line : result.setup()) md.append("- ").append(escape(line)).append('\n');
            md.append('\n');
        }
        for (ScenarioResult.Table table : result.tables()) table(md, table);
        if (!result.links().isEmpty()) {
            md.append("## Links\n\n");
            for (Map.Entry<String, String> link : result.links().entrySet()) {
                md.append("- [").append(escape(link.getKey())).append("](").append(link.getValue()).append(")\n");
            }
            md.append('\n');
        }
        return md.toString();
    }

    private static void table(StringBuilder md, ScenarioResult.Table table) {
        md.append("## ").append(escape(table.title())).append("\n\n");
        md.append(row(table.columns()));
        md.append('|');
        for (int i = 0; i < table.columns().size(); i++) md.append(i == 0 ? "---|" : "---:|");
        md.append('\n');
        for (List<String> row : table.rows()) md.append(row(row));
        md.append('\n');
    }

    private static String row(List<String> cells) {
        StringBuilder line = new StringBuilder("|");
        for (String cell : cells) line.append(' ').append(escape(cell).replace("|", "\\|")).append(" |");
        return line.append('\n').toString();
    }

    /** Keeps Markdown from reading a figure as markup: {@code *} and {@code _} are escaped. */
    private static String escape(String text) {
        return text.replace("*", "\\*").replace("_", "\\_").replace("\n", " ");
    }
}
