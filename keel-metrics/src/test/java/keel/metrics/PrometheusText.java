package keel.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A strict reader of the Prometheus text exposition format 0.0.4, for the tests: every line must be
 * blank, a comment, a well-formed {@code # HELP} / {@code # TYPE}, or a sample
 * {@code name{label="value",...} value [timestamp]} whose family was typed before it.
 */
final class PrometheusText {
    private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");

    record Sample(String name, Map<String, String> labels, double value, String family) {
        boolean has(Map<String, String> wanted) {
            return labels.entrySet().containsAll(wanted.entrySet());
        }
    }

    private final Map<String, String> types = new LinkedHashMap<>();
    private final List<Sample> samples = new ArrayList<>();

    private PrometheusText() {
    }

    /** Parses {@code text}, throwing {@link IllegalArgumentException} naming the first bad line. */
    static PrometheusText parse(String text) {
        PrometheusText parsed = new PrometheusText();
        if (!text.isEmpty() && !text.endsWith("\n")) throw new IllegalArgumentException("the text must end with a newline");
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length - 1; i++) {
            try {
                parsed.line(lines[i]);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("line " + (i + 1) + ": " + e.getMessage() + ": " + lines[i], e);
            }
        }
        return parsed;
    }

    Map<String, String> types() {
        return types;
    }

    List<Sample> samples() {
        return samples;
    }

    /** The samples called {@code name} whose labels include {@code labels} (alternating names and values). */
    List<Sample> find(String name, String... labels) {
        Map<String, String> wanted = new LinkedHashMap<>();
        for (int i = 0; i < labels.length; i += 2) wanted.put(labels[i], labels[i + 1]);
        return samples.stream().filter(s -> s.name().equals(name) && s.has(wanted)).toList();
    }

    /** The value of the one sample matching, or 0 when there is none. */
    double value(String name, String... labels) {
        List<Sample> found = find(name, labels);
        if (found.size() > 1) throw new IllegalStateException(found.size() + " samples match " + name + " " + List.of(labels));
        return found.isEmpty() ? 0 : found.getFirst().value();
    }

    private void line(String line) {
        if (line.isEmpty()) return;
        if (line.startsWith("#")) {
            comment(line);
            return;
        }
        sample(line);
    }

    private void comment(String line) {
        String[] parts = line.split(" ", 4);
        if (parts.length >= 3 && parts[0].equals("#") && parts[1].equals("HELP")) {
            requireName(parts[2]);
        } else if (parts.length >= 3 && parts[0].equals("#") && parts[1].equals("TYPE")) {
            requireName(parts[2]);
            if (parts.length != 4 || !TYPES.contains(parts[3])) throw new IllegalArgumentException("bad type");
            if (types.containsKey(parts[2])) throw new IllegalArgumentException("family typed twice");
            if (samples.stream().anyMatch(s -> s.family().equals(parts[2]))) throw new IllegalArgumentException("typed after its samples");
            types.put(parts[2], parts[3]);
        } else if (!line.startsWith("# ") && !line.equals("#")) {
            throw new IllegalArgumentException("a comment starts with '# '");
        }
    }

    private void sample(String line) {
        int at = 0;
        while (at < line.length() && line.charAt(at) != '{' && line.charAt(at) != ' ') at++;
        String name = requireName(line.substring(0, at));
        Map<String, String> labels = new LinkedHashMap<>();
        if (at < line.length() && line.charAt(at) == '{') at = labels(line, at + 1, labels);
        if (at >= line.length() || line.charAt(at) != ' ') throw new IllegalArgumentException("expected a space before the value");
        String[] rest = line.substring(at + 1).split(" ", -1);
        if (rest.length > 2) throw new IllegalArgumentException("trailing text after the value");
        double value = number(rest[0]);
        if (rest.length == 2) Long.parseLong(rest[1]);
        String family = familyOf(name, labels);
        samples.add(new Sample(name, Map.copyOf(labels), value, family));
    }

    /** Reads {@code name="value",...}} from {@code at}; returns the index after the closing brace. */
    private static int labels(String line, int at, Map<String, String> labels) {
        while (true) {
            if (at >= line.length()) throw new IllegalArgumentException("unclosed label set");
            if (line.charAt(at) == '}') return at + 1;
            int eq = line.indexOf('=', at);
            if (eq < 0) throw new IllegalArgumentException("label without '='");
            String labelName = line.substring(at, eq);
            if (!LABEL_NAME.matcher(labelName).matches()) throw new IllegalArgumentException("bad label name '" + labelName + "'");
            if (eq + 1 >= line.length() || line.charAt(eq + 1) != '"') throw new IllegalArgumentException("label value not quoted");
            StringBuilder value = new StringBuilder();
            int i = eq + 2;
            for (; ; i++) {
                if (i >= line.length()) throw new IllegalArgumentException("unterminated label value");
                char c = line.charAt(i);
                if (c == '"') break;
                if (c == '\\') {
                    char next = i + 1 < line.length() ? line.charAt(++i) : 0;
                    switch (next) {
                        case '\\' -> value.append('\\');
                        case '"' -> value.append('"');
                        case 'n' -> value.append('\n');
                        default -> throw new IllegalArgumentException("bad escape in label value");
                    }
                } else {
                    value.append(c);
                }
            }
            if (labels.put(labelName, value.toString()) != null) throw new IllegalArgumentException("label repeated: " + labelName);
            at = i + 1;
            if (at < line.length() && line.charAt(at) == ',') at++;
            else if (at >= line.length() || line.charAt(at) != '}') throw new IllegalArgumentException("expected ',' or '}'");
        }
    }

    private static double number(String text) {
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> {
                if (!text.matches("[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?")) throw new IllegalArgumentException("bad value '" + text + "'");
                yield Double.parseDouble(text);
            }
        };
    }

    /** The typed family a sample belongs to, by its exact name or by the suffixes its family's type allows. */
    private String familyOf(String name, Map<String, String> labels) {
        if (types.containsKey(name)) {
            String type = types.get(name);
            if (type.equals("histogram")) throw new IllegalArgumentException("a histogram has no sample under its own name");
            if (type.equals("summary") && !labels.containsKey("quantile")) {
                throw new IllegalArgumentException("a summary's own name carries only quantiles");
            }
            return name;
        }
        for (String suffix : List.of("_total", "_created", "_bucket", "_count", "_sum")) {
            if (!name.endsWith(suffix)) continue;
            String family = name.substring(0, name.length() - suffix.length());
            String type = types.get(family);
            if (type == null) continue;
            boolean fits = switch (type) {
                case "counter" -> suffix.equals("_total") || suffix.equals("_created");
                case "histogram" -> !suffix.equals("_total") && (!suffix.equals("_bucket") || labels.containsKey("le"));
                case "summary" -> suffix.equals("_count") || suffix.equals("_sum") || suffix.equals("_created");
                default -> false;
            };
            if (fits) return family;
        }
        throw new IllegalArgumentException("no # TYPE for the family of " + name);
    }

    private static String requireName(String name) {
        if (!NAME.matcher(name).matches()) throw new IllegalArgumentException("bad metric name '" + name + "'");
        return name;
    }
}
