package keel.lab.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Draws a {@link ScenarioResult.Chart} as an inline SVG element, so that the HTML report needs no
 * script and no network. A {@code line} chart has axes with ticks, a grid, one coloured line per
 * series and a legend; its y axis turns logarithmic when the positive values span two decades or
 * more (a blocked loop's seconds beside the others' milliseconds). A {@code bar} chart draws one
 * group per series, one bar per point, from zero. The plot area is filled with {@link #PLOT_FILL}.
 */
public final class SvgChart {
    public static final int WIDTH = 570;
    public static final int HEIGHT = 300;
    /** The plot area's background (tests find the chart in a screenshot by it). */
    public static final String PLOT_FILL = "#f4f7fb";
    public static final List<String> PALETTE = List.of("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
            "#e377c2", "#7f7f7f", "#bcbd22", "#17becf");
    private static final int LEFT = 64;
    private static final int RIGHT = 410;
    private static final int TOP = 30;
    private static final int BOTTOM = 250;

    private SvgChart() {
    }

    public static String render(ScenarioResult.Chart chart) {
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
                WIDTH, HEIGHT, WIDTH, HEIGHT));
        svg.append("<title>").append(xml(chart.title())).append("</title>");
        text(svg, (LEFT + RIGHT) / 2.0, 18, "middle", "title", chart.title());
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>", LEFT, TOP, RIGHT - LEFT, BOTTOM - TOP, PLOT_FILL));
        if ("bar".equals(chart.kind())) bars(svg, chart);
        else lines(svg, chart);
        text(svg, (LEFT + RIGHT) / 2.0, HEIGHT - 12, "middle", "axis", chart.xLabel());
        svg.append(String.format(Locale.ROOT, "<text class=\"axis\" text-anchor=\"middle\" transform=\"translate(14 %.1f) rotate(-90)\">%s</text>",
                (TOP + BOTTOM) / 2.0, xml(chart.yLabel())));
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>", LEFT, BOTTOM, RIGHT, BOTTOM));
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>", LEFT, TOP, LEFT, BOTTOM));
        return svg.append("</svg>").toString();
    }

    private static void lines(StringBuilder svg, ScenarioResult.Chart chart) {
        List<double[]> all = chart.lines().stream().flatMap(line -> line.points().stream()).filter(SvgChart::finite).toList();
        if (all.isEmpty()) {
            text(svg, (LEFT + RIGHT) / 2.0, (TOP + BOTTOM) / 2.0, "middle", "axis", "no data");
            return;
        }
        Axis x = Axis.linear(all.stream().mapToDouble(p -> p[0]).min().orElseThrow(), all.stream().mapToDouble(p -> p[0]).max().orElseThrow(), false);
        Axis y = Axis.forValues(all.stream().mapToDouble(p -> p[1]).toArray());
        for (double tick : x.ticks()) {
            double px = scale(tick, x, LEFT, RIGHT);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>", px, BOTTOM, px, BOTTOM + 4));
            text(svg, px, BOTTOM + 16, "middle", "tick", Figures.format(tick));
        }
        yTicks(svg, y);
        for (int i = 0; i < chart.lines().size(); i++) {
            ScenarioResult.Line line = chart.lines().get(i);
            String colour = PALETTE.get(i % PALETTE.size());
            List<String> coordinates = new ArrayList<>();
            for (double[] point : line.points()) {
                if (!finite(point) || (y.log() && point[1] <= 0)) continue;
                coordinates.add(String.format(Locale.ROOT, "%.1f,%.1f", scale(point[0], x, LEFT, RIGHT), scale(point[1], y, BOTTOM, TOP)));
            }
            svg.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(colour).append("\" points=\"")
                    .append(String.join(" ", coordinates)).append("\"/>");
            if (coordinates.size() <= 40) {
                for (String c : coordinates) {
                    String[] xy = c.split(",");
                    svg.append("<circle r=\"2.5\" fill=\"").append(colour).append("\" cx=\"").append(xy[0]).append("\" cy=\"").append(xy[1]).append("\"/>");
                }
            }
            legend(svg, i, colour, line.name());
        }
    }

    private static void bars(StringBuilder svg, ScenarioResult.Chart chart) {
        int groups = chart.lines().size();
        double max = chart.lines().stream().flatMap(l -> l.points().stream()).filter(SvgChart::finite).mapToDouble(p -> p[1]).max().orElse(0);
        Axis y = Axis.linear(0, Math.max(max, 1e-9), true);
        yTicks(svg, y);
        if (groups == 0) return;
        double groupWidth = (RIGHT - LEFT) / (double) groups;
        for (int g = 0; g < groups; g++) {
            ScenarioResult.Line line = chart.lines().get(g);
            int bars = Math.max(1, line.points().size());
            double barWidth = groupWidth * 0.7 / bars;
            double start = LEFT + g * groupWidth + groupWidth * 0.15;
            for (int b = 0; b < line.points().size(); b++) {
                double[] point = line.points().get(b);
                if (!finite(point)) continue;
                double top = scale(Math.max(0, point[1]), y, BOTTOM, TOP);
                String colour = PALETTE.get((bars == 1 ? g : b) % PALETTE.size());
                svg.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s: %s</title></rect>",
                        start + b * barWidth, top, Math.max(1, barWidth - 2), BOTTOM - top, colour, xml(line.name()), Figures.format(point[1])));
                if (bars > 1) text(svg, start + (b + 0.5) * barWidth, BOTTOM - 4 - (BOTTOM - top), "middle", "tick", Figures.format(point[0]));
            }
            // One bar per series: the legend names it (names under narrow bars would overlap).
            if (bars == 1) legend(svg, g, PALETTE.get(g % PALETTE.size()), line.name());
            else text(svg, LEFT + (g + 0.5) * groupWidth, BOTTOM + 16, "middle", "tick", line.name());
        }
    }

    private static void yTicks(StringBuilder svg, Axis y) {
        for (double tick : y.ticks()) {
            double py = scale(tick, y, BOTTOM, TOP);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#dde3ea\"/>", LEFT, py, RIGHT, py));
            text(svg, LEFT - 6, py + 4, "end", "tick", Figures.format(tick));
        }
        if (y.log()) text(svg, LEFT + 4, TOP - 4, "start", "tick", "log scale");
    }

    private static void legend(StringBuilder svg, int index, String colour, String name) {
        double y = TOP + 8 + index * 18;
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%.1f\" width=\"14\" height=\"4\" fill=\"%s\"/>", RIGHT + 14, y, colour));
        text(svg, RIGHT + 34, y + 6, "start", "legend", name);
    }

    private static void text(StringBuilder svg, double x, double y, String anchor, String css, String text) {
        svg.append(String.format(Locale.ROOT, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>", css, x, y, anchor, xml(text)));
    }

    private static double scale(double value, Axis axis, double from, double to) {
        double low = axis.log() ? Math.log10(axis.min()) : axis.min();
        double high = axis.log() ? Math.log10(axis.max()) : axis.max();
        double v = axis.log() ? Math.log10(Math.max(value, axis.min())) : value;
        return high == low ? (from + to) / 2 : from + (to - from) * (v - low) / (high - low);
    }

    private static boolean finite(double[] point) {
        return point.length >= 2 && Double.isFinite(point[0]) && Double.isFinite(point[1]);
    }

    static String xml(String text) {
        return text == null ? "" : text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** An axis range and its ticks: 1-2-5 steps on a linear axis, powers of ten on a log axis. */
    record Axis(double min, double max, boolean log, List<Double> ticks) {
        static Axis forValues(double[] values) {
            double min = Double.POSITIVE_INFINITY;
            double max = Double.NEGATIVE_INFINITY;
            double minPositive = Double.POSITIVE_INFINITY;
            for (double v : values) {
                min = Math.min(min, v);
                max = Math.max(max, v);
                if (v > 0) minPositive = Math.min(minPositive, v);
            }
            if (min > 0 && max / minPositive >= 100) return logarithmic(minPositive, max);
            return linear(Math.min(0, min), max, true);
        }

        static Axis linear(double min, double max, boolean fromZero) {
            if (max <= min) max = min + (min == 0 ? 1 : Math.abs(min) * 0.1);
            double step = niceStep((max - min) / 5);
            double low = fromZero ? Math.floor(min / step) * step : min;
            double high = fromZero ? Math.ceil(max / step) * step : max;
            List<Double> ticks = new ArrayList<>();
            for (double t = Math.ceil(low / step) * step; t <= high + step * 1e-9; t += step) ticks.add(Math.abs(t) < step * 1e-9 ? 0 : t);
            return new Axis(low, high, false, ticks);
        }

        static Axis logarithmic(double min, double max) {
            double low = Math.pow(10, Math.floor(Math.log10(min)));
            double high = Math.pow(10, Math.ceil(Math.log10(max)));
            List<Double> ticks = new ArrayList<>();
            for (double t = low; t <= high * 1.0001; t *= 10) ticks.add(t);
            return new Axis(low, high, true, ticks);
        }

        /** The 1, 2 or 5 times a power of ten nearest above {@code raw}. */
        static double niceStep(double raw) {
            double power = Math.pow(10, Math.floor(Math.log10(raw)));
            double fraction = raw / power;
            double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
            return nice * power;
        }
    }
}
