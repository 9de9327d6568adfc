package keel.http.router;

import keel.http.AsyncHandler;
import keel.http.Execution;
import keel.http.Handler;
import keel.http.ws.WsEndpoint;
import keel.http.ws.WsListener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Declares routes before the server starts. Every verb method funnels into one primitive,
 * {@link #route(String, String, Route.Endpoint)}; {@link #with(Execution)} gives a view whose routes
 * run under that execution instead of the server's default, and {@link #limit}, {@link #deadline}
 * and {@link #maxBodySize} give views with those settings:
 *
 * <pre>{@code
 * Router router = new Router()
 *         .get("/hello/{name}", req -> Response.ok("Hello " + req.pathParam("name")));
 * router.with(Execution.WORKER_POOL).limit(50).post("/orders", orders::create);
 * }</pre>
 *
 * The table is frozen when a server starts with it, with the server's configured
 * {@link RouteSettings} applied over what the code declared; adding a route afterwards throws.
 */
public final class Router {
    private static final class Table {
        final List<Route> routes = new ArrayList<>();
        boolean frozen;
    }

    private final Table table;
    private final Execution execution;
    private final int maxConcurrent;
    private final Duration deadline;
    private final long maxBodySize;

    public Router() {
        this(new Table(), null, 0, null, -1);
    }

    private Router(Table table, Execution execution, int maxConcurrent, Duration deadline, long maxBodySize) {
        this.table = table;
        this.execution = execution;
        this.maxConcurrent = maxConcurrent;
        this.deadline = deadline;
        this.maxBodySize = maxBodySize;
    }

    /** A view of this router whose routes run under {@code execution}. */
    public Router with(Execution execution) {
        return new Router(table, Objects.requireNonNull(execution, "execution"), maxConcurrent, deadline, maxBodySize);
    }

    /** A view whose routes each run at most {@code maxConcurrent} requests at once; more get 503 at once. */
    public Router limit(int maxConcurrent) {
        if (maxConcurrent < 1) throw new IllegalArgumentException("a route limit must be >= 1: " + maxConcurrent);
        return new Router(table, execution, maxConcurrent, deadline, maxBodySize);
    }

    /** A view whose handlers get 503 once they run longer than {@code deadline} ({@link Duration#ZERO}: none). */
    public Router deadline(Duration deadline) {
        if (deadline.isNegative()) throw new IllegalArgumentException("a deadline must be >= 0: " + deadline);
        return new Router(table, execution, maxConcurrent, deadline, maxBodySize);
    }

    /** A view whose routes refuse a request body over {@code maxBodySize} bytes with 413. */
    public Router maxBodySize(long maxBodySize) {
        if (maxBodySize < 0 || maxBodySize > Integer.MAX_VALUE - 16) throw new IllegalArgumentException("max-body must be in 0..2GiB: " + maxBodySize);
        return new Router(table, execution, maxConcurrent, deadline, maxBodySize);
    }

    public Router get(String path, Handler handler) { return route("GET", path, handler); }
    public Router post(String path, Handler handler) { return route("POST", path, handler); }
    public Router put(String path, Handler handler) { return route("PUT", path, handler); }
    public Router delete(String path, Handler handler) { return route("DELETE", path, handler); }
    public Router patch(String path, Handler handler) { return route("PATCH", path, handler); }
    public Router getAsync(String path, AsyncHandler handler) { return routeAsync("GET", path, handler); }
    public Router postAsync(String path, AsyncHandler handler) { return routeAsync("POST", path, handler); }
    public Router putAsync(String path, AsyncHandler handler) { return routeAsync("PUT", path, handler); }
    public Router deleteAsync(String path, AsyncHandler handler) { return routeAsync("DELETE", path, handler); }
    public Router patchAsync(String path, AsyncHandler handler) { return routeAsync("PATCH", path, handler); }

    /**
     * A WebSocket route: {@code GET path} upgrades (a request without the upgrade gets 426), and
     * {@code listener} gets the events of each session, under this view's execution.
     */
    public Router ws(String path, WsListener listener) {
        return ws(path, WsEndpoint.of(Objects.requireNonNull(listener, "listener")));
    }

    /** A WebSocket route with handshake hooks (origin check, subprotocols). */
    public Router ws(String path, WsEndpoint endpoint) {
        return route("GET", path, new Route.WebSocket(Objects.requireNonNull(endpoint, "endpoint")));
    }

    public Router route(String method, String path, Handler handler) {
        return route(method, path, new Route.Sync(Objects.requireNonNull(handler, "handler")));
    }

    public Router routeAsync(String method, String path, AsyncHandler handler) {
        return route(method, path, new Route.Async(Objects.requireNonNull(handler, "handler")));
    }

    /** The primitive every other registration calls. */
    public synchronized Router route(String method, String path, Route.Endpoint endpoint) {
        if (table.frozen) throw new IllegalStateException("routes are frozen once the server has started");
        Route route = new Route(method, new PathPattern(path).text(), endpoint, execution, maxConcurrent, deadline, maxBodySize, Set.of());
        for (Route existing : table.routes) {
            if (existing.method().equals(method) && existing.path().equals(path)) {
                throw new IllegalArgumentException("route declared twice: " + method + " " + path);
            }
        }
        table.routes.add(route);
        return this;
    }

    /** Freezes the routes and returns the immutable table a server matches against. */
    public RouteTable freeze() {
        return freeze(List.of());
    }

    /**
     * Freezes the routes and returns the table a server matches against, with {@code configured}
     * applied in order over what the code declared.
     *
     * @throws IllegalArgumentException when an entry matches no declared route; the message names it
     *                                  ({@code routes[2].path}) and lists the routes there are
     */
    public synchronized RouteTable freeze(List<RouteSettings> configured) {
        table.frozen = true;
        List<Route> routes = new ArrayList<>(table.routes);
        for (int i = 0; i < configured.size(); i++) {
            RouteSettings settings = configured.get(i);
            boolean matched = false;
            for (int r = 0; r < routes.size(); r++) {
                if (settings.appliesTo(routes.get(r))) {
                    routes.set(r, routes.get(r).configuredBy(settings));
                    matched = true;
                }
            }
            if (!matched) throw new IllegalArgumentException(unmatched(i, settings, routes));
        }
        return new RouteTable(routes);
    }

    private static String unmatched(int index, RouteSettings settings, List<Route> routes) {
        Set<String> methods = new TreeSet<>();
        Set<String> declared = new TreeSet<>();
        for (Route route : routes) {
            if (route.path().equals(settings.path())) methods.add(route.method());
            declared.add(route.path());
        }
        if (!methods.isEmpty()) {
            return "routes[" + index + "].method: no " + settings.method() + " route at " + settings.path() + " (it has " + String.join(", ", methods) + ")";
        }
        return "routes[" + index + "].path: no route has the pattern " + settings.path() + " (the patterns are " + String.join(", ", declared) + ")";
    }
}
