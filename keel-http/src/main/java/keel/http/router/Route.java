package keel.http.router;

import keel.http.AsyncHandler;
import keel.http.Execution;
import keel.http.Handler;
import keel.http.ws.WsEndpoint;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * One route: a method, a path pattern, the handler, and its settings, each unset (the server's
 * default applies) or set by the code ({@link Router#with}, {@link Router#limit}, …) or by
 * configuration ({@link RouteSettings}), which wins over the code.
 *
 * @param execution     where it runs; null: the server's default
 * @param maxConcurrent requests it may run at once (past it, 503); 0: no limit of its own
 * @param deadline      how long its handler may take (past it, 503); null: the server's;
 *                      {@link Duration#ZERO}: none
 * @param maxBodySize   its largest request body (past it, 413); -1: the server's
 * @param configured    the settings configuration gave it; the others it has come from the code
 */
public record Route(String method, String path, Endpoint endpoint, Execution execution, int maxConcurrent,
                    Duration deadline, long maxBodySize, Set<Setting> configured) {

    /** A route's settings, for telling where each came from. */
    public enum Setting { EXECUTION, LIMIT, DEADLINE, MAX_BODY_SIZE }

    public Route {
        configured = Set.copyOf(configured);
    }

    /**
     * By value, as a record's, but written out: the generated {@code equals} and {@code hashCode} build
     * method handles at their first call, which cost the start about 30 ms.
     */
    @Override
    public boolean equals(Object other) {
        return other instanceof Route that && Objects.equals(method, that.method) && path.equals(that.path)
                && endpoint.equals(that.endpoint) && execution == that.execution && maxConcurrent == that.maxConcurrent
                && Objects.equals(deadline, that.deadline) && maxBodySize == that.maxBodySize && configured.equals(that.configured);
    }

    @Override
    public int hashCode() {
        return 31 * Objects.hashCode(method) + path.hashCode();
    }

    /** The handler of a route, synchronous or asynchronous. */
    public sealed interface Endpoint {
    }

    public record Sync(Handler handler) implements Endpoint {
    }

    public record Async(AsyncHandler handler) implements Endpoint {
    }

    /**
     * A WebSocket endpoint: a GET that upgrades, after which the listener's callbacks run under the
     * route's execution; the route's concurrency limit bounds its open sessions.
     */
    public record WebSocket(WsEndpoint endpoint) implements Endpoint {
    }

    /** The execution this route runs under on a server whose default is {@code serverDefault}. */
    public Execution executionOr(Execution serverDefault) {
        return execution != null ? execution : serverDefault;
    }

    /** Its handler deadline on a server whose default is {@code serverDefault}; {@link Duration#ZERO}: none. */
    public Duration deadlineOr(Duration serverDefault) {
        return deadline != null ? deadline : serverDefault;
    }

    /** Its largest request body on a server whose default is {@code serverDefault}. */
    public long maxBodySizeOr(long serverDefault) {
        return maxBodySize >= 0 ? maxBodySize : serverDefault;
    }

    /** Whether {@code setting} was set at all, by the code or by configuration. */
    public boolean isSet(Setting setting) {
        return switch (setting) {
            case EXECUTION -> execution != null;
            case LIMIT -> maxConcurrent > 0;
            case DEADLINE -> deadline != null;
            case MAX_BODY_SIZE -> maxBodySize >= 0;
        };
    }

    /** This route with what {@code settings} set, each such setting marked as configured. */
    Route configuredBy(RouteSettings settings) {
        Set<Setting> marked = configured.isEmpty() ? EnumSet.noneOf(Setting.class) : EnumSet.copyOf(configured);
        if (settings.execution() != null) marked.add(Setting.EXECUTION);
        if (settings.limit() > 0) marked.add(Setting.LIMIT);
        if (settings.deadline() != null) marked.add(Setting.DEADLINE);
        if (settings.maxBodySize() >= 0) marked.add(Setting.MAX_BODY_SIZE);
        return new Route(method, path, endpoint,
                settings.execution() != null ? settings.execution() : execution,
                settings.limit() > 0 ? settings.limit() : maxConcurrent,
                settings.deadline() != null ? settings.deadline() : deadline,
                settings.maxBodySize() >= 0 ? settings.maxBodySize() : maxBodySize, marked);
    }
}
