package keel.lab.report;

import java.util.List;
import java.util.Map;

import static keel.lab.report.SvgChart.xml;

/**
 * {@code index.html}: every scenario of a run in one self-contained page (inline CSS, charts as
 * inline SVG, no script, nothing fetched), so it opens offline and can be mailed as one file.
 */
public final class HtmlReport {
    private static final String CSS = """
            body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1180px;color:#1d2733;padding:0 16px}
            h1{font-size:26px;margin-bottom:4px}h2{font-size:21px;border-bottom:2px solid #dde3ea;padding-bottom:4px;margin-top:36px}
            h3{font-size:16px;margin:18px 0 6px}.meta{color:#5b6776;font-size:14px}
            .summary{background:#eef4fb;border-left:4px solid #1f77b4;padding:8px 14px;margin:10px 0}
            .summary p{margin:4px 0;font-weight:600}.failed .summary{background:#fdeeee;border-color:#d62728}
            .skipped .summary{background:#f6f6f6;border-color:#999}
            ul.setup{font-size:13px;color:#3b4652;margin:6px 0 12px}
            table{border-collapse:collapse;font-size:13px;margin:6px 0 14px}
            th,td{border:1px solid #d5dbe2;padding:4px 8px;text-align:right;white-space:nowrap}
            th{background:#f0f3f7}td:first-child,th:first-child{text-align:left}
            .charts{display:flex;flex-wrap:wrap;gap:12px}
            svg.chart{background:#fff;border:1px solid #e3e8ee}
            svg .title{font-size:14px;font-weight:600;fill:#1d2733}svg .axis{font-size:12px;fill:#3b4652}
            svg .tick{font-size:10px;fill:#5b6776}svg .legend{font-size:11px;fill:#1d2733}
            nav ul{columns:2;font-size:14px}
            """;

    private HtmlReport() {
    }

    public static String render(LabReport report) {
        StringBuilder html = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
        html.append("<title>Keel lab — ").append(xml(report.started())).append("</title><style>").append(CSS).append("</style></head><body>\n");
        html.append("<h1>Keel lab</h1><p class=\"meta\">Started ").append(xml(report.started())).append(", took ")
                .append(Figures.format(report.seconds())).append(" s. ").append(xml(String.join("; ", report.machine()))).append("</p>\n");
        html.append("<nav><ul>");
        for (ScenarioResult result : report.results()) {
            html.append("<li><a href=\"#").append(xml(result.scenario())).append("\">").append(xml(result.scenario())).append("</a>: ")
                    .append(xml(result.summary().isEmpty() ? "" : result.summary().getFirst())).append("</li>");
        }
        html.append("</ul></nav>\n");
        for (ScenarioResult result : report.results()) section(html, result);
        return html.append("</body></html>\n").toString();
    }

    private static void section(StringBuilder html, ScenarioResult result) {
        String state = result.skipped() ? "skipped" : result.summary().stream().anyMatch(s -> s.startsWith("failed:")) ? "failed" : "ran";
        html.append("<section id=\"").append(xml(result.scenario())).append("\" class=\"").append(state).append("\">");
        html.append("<h2>").append(xml(result.title())).append(" <code>").append(xml(result.scenario())).append("</code></h2>");
        html.append("<div class=\"summary\">");
        for (String line : result.summary()) html.append("<p>").append(xml(line)).append("</p>");
        html.append("</div>");
        if (!result.setup().isEmpty()) {
            html.append("<ul class=\"setup\">");
            for (String line : result.setup()) html.append("<li>").append(xml(line)).append("</li>");
            html.append("</ul>");
        }
        for (ScenarioResult.Table table : result.tables()) table(html, table);
        if (!result.charts().isEmpty()) {
            html.append("<div class=\"charts\">");
            for (ScenarioResult.Chart chart : result.charts()) html.append(SvgChart.render(chart));
            html.append("</div>");
        }
        if (!result.links().isEmpty()) {
            html.append("<ul>");
            for (Map.Entry<String, String> link : result.links().entrySet()) {
                html.append("<li><a href=\"").append(xml(result.scenario() + "/" + link.getValue())).append("\">").append(xml(link.getKey())).append("</a></li>");
            }
            html.append("</ul>");
        }
        html.append("</section>\n");
    }

    private static void table(StringBuilder html, ScenarioResult.Table table) {
        html.append("<h3>").append(xml(table.title())).append("</h3><table><tr>");
        for (String column : table.columns()) html.append("<th>").append(xml(column)).append("</th>");
        html.append("</tr>");
        for (List<String> row : table.rows()) {
            html.append("<tr>");
            for (String cell : row) html.append("<td>").append(xml(cell)).append("</td>");
            html.append("</tr>");
        }
        html.append("</table>");
    }
}
