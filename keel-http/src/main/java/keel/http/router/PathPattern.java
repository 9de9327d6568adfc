package keel.http.router;

import keel.http.HttpStatusException;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A route path such as {@code /users/{id}/orders}: literal segments and named {@code {parameters}},
 * each parameter matching one non-empty segment.
 */
final class PathPattern {
    private final String text;
    private final String[] segments;
    private final boolean[] isParameter;
    private final List<String> parameterNames;

    PathPattern(String text) {
        if (!text.startsWith("/")) throw new IllegalArgumentException("a route path starts with '/': " + text);
        this.text = text;
        this.segments = split(text);
        this.isParameter = new boolean[segments.length];
        List<String> names = new ArrayList<>();
        for (int i = 0; i < segments.length; i++) {
            String segment = segments[i];
            if (segment.startsWith("{") && segment.endsWith("}") && segment.length() > 2) {
                isParameter[i] = true;
                segments[i] = segment.substring(1, segment.length() - 1);
                if (names.contains(segments[i])) throw new IllegalArgumentException("duplicate parameter in " + text);
                names.add(segments[i]);
            } else if (segment.contains("{") || segment.contains("}")) {
                throw new IllegalArgumentException("a parameter must be a whole segment: " + text);
            }
        }
        this.parameterNames = List.copyOf(names);
    }

    String text() {
        return text;
    }

    boolean hasParameters() {
        return !parameterNames.isEmpty();
    }

    /** The decoded parameters if {@code path} matches, else null. */
    Map<String, String> match(String[] pathSegments) {
        if (pathSegments.length != segments.length) return null;
        for (int i = 0; i < segments.length; i++) {
            if (!isParameter[i] && !segments[i].equals(pathSegments[i])) return null;
            if (isParameter[i] && pathSegments[i].isEmpty()) return null;
        }
        if (parameterNames.isEmpty()) return Map.of();
        String[] entries = new String[parameterNames.size() * 2];
        int n = 0;
        for (int i = 0; i < segments.length; i++) {
            if (!isParameter[i]) continue;
            entries[n++] = segments[i];
            entries[n++] = decode(pathSegments[i]);
        }
        return ofEntries(entries);
    }

    private static Map<String, String> ofEntries(String[] entries) {
        return switch (entries.length) {
            case 2 -> Map.of(entries[0], entries[1]);
            case 4 -> Map.of(entries[0], entries[1], entries[2], entries[3]);
            default -> {
                java.util.HashMap<String, String> map = new java.util.HashMap<>();
                for (int i = 0; i < entries.length; i += 2) map.put(entries[i], entries[i + 1]);
                yield Map.copyOf(map);
            }
        };
    }

    static String[] split(String path) {
        return path.length() == 1 ? new String[]{""} : path.substring(1).split("/", -1);
    }

    /** RFC 3986 percent-decoding of a path segment ('+' stays '+', unlike form decoding). */
    private static String decode(String segment) {
        if (segment.indexOf('%') < 0) return segment;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c != '%') {
                bytes.write(c);
                continue;
            }
            int high = i + 2 < segment.length() ? Character.digit(segment.charAt(i + 1), 16) : -1;
            int low = high < 0 ? -1 : Character.digit(segment.charAt(i + 2), 16);
            if (low < 0) throw new HttpStatusException(400, "malformed percent-encoding in path");
            bytes.write(high << 4 | low);
            i += 2;
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
