package keel.http.router;

import keel.http.Methods;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The immutable routes of a running server. Literal paths are found with one hash lookup; patterns
 * with parameters are tried in declaration order. {@code HEAD} falls back to the {@code GET} route.
 */
public final class RouteTable {
    /** One path and its routes by method. */
    private record Entry(PathPattern pattern, Map<String, Route> byMethod) {
    }

    private final Map<String, Entry> literal = new HashMap<>();
    /** Ready answers for literal paths and the standard methods: one lookup, no allocation. */
    private final Map<String, RouteMatch.Found[]> literalFound = new HashMap<>();
    private final List<Entry> patterns = new ArrayList<>();
    private final List<Route> routes;

    RouteTable(List<Route> declared) {
        this.routes = List.copyOf(declared);
        Map<String, Entry> byPath = new LinkedHashMap<>();
        for (Route route : routes) {
            byPath.computeIfAbsent(route.path(), p -> new Entry(new PathPattern(p), new LinkedHashMap<>()))
                    .byMethod().put(route.method(), route);
        }
        for (Entry entry : byPath.values()) {
            if (entry.pattern().hasParameters()) patterns.add(entry);
            else literal.put(entry.pattern().text(), entry);
        }
        for (Entry entry : literal.values()) {
            RouteMatch.Found[] found = new RouteMatch.Found[Methods.count()];
            for (int i = 0; i < found.length; i++) {
                Route route = byMethod(entry, Methods.name(i));
                if (route != null) found[i] = new RouteMatch.Found(route, Map.of());
            }
            literalFound.put(entry.pattern().text(), found);
        }
    }

    public List<Route> routes() {
        return routes;
    }

    public RouteMatch match(String method, String path) {
        int fast = Methods.index(method);
        if (fast >= 0) {
            RouteMatch.Found[] found = literalFound.get(path);
            if (found != null && found[fast] != null) return found[fast];
        }
        Entry exact = literal.get(path);
        if (exact != null) {
            Route route = byMethod(exact, method);
            return route != null ? new RouteMatch.Found(route, Map.of()) : notAllowed(List.of(exact));
        }
        if (patterns.isEmpty()) return RouteMatch.NOT_FOUND;
        String[] segments = PathPattern.split(path);
        List<Entry> pathMatches = new ArrayList<>(2);
        for (Entry entry : patterns) {
            Map<String, String> params = entry.pattern().match(segments);
            if (params == null) continue;
            Route route = byMethod(entry, method);
            if (route != null) return new RouteMatch.Found(route, params);
            pathMatches.add(entry);
        }
        return pathMatches.isEmpty() ? RouteMatch.NOT_FOUND : notAllowed(pathMatches);
    }

    private static Route byMethod(Entry entry, String method) {
        Route route = entry.byMethod().get(method);
        if (route == null && method.equals("HEAD")) route = entry.byMethod().get("GET");
        return route;
    }

    private static RouteMatch notAllowed(List<Entry> entries) {
        Set<String> allowed = new TreeSet<>();
        for (Entry entry : entries) {
            allowed.addAll(entry.byMethod().keySet());
            if (entry.byMethod().containsKey("GET")) allowed.add("HEAD");
        }
        return new RouteMatch.MethodNotAllowed(allowed);
    }
}
