package keel.http.router;

import keel.http.Execution;

import java.time.Duration;
import java.util.Objects;

/**
 * What configuration sets for the routes of one pattern ({@code routes:} in keel.yaml, or
 * {@code ServerOptions.builder().route(..)}): each setting left unset keeps what the code declared,
 * or the server's default. Applied when the server starts; a pattern (or pattern and method) that
 * matches no declared route stops the start.
 *
 * <pre>{@code
 * RouteSettings.of("/gateway/publish").method("POST").execution(Execution.WORKER_POOL)
 *         .limit(500).deadline(Duration.ofSeconds(2)).maxBodySize(1 << 20)
 * }</pre>
 *
 * @param path        the route's pattern as declared ({@code /devices/{id}/status})
 * @param method      the route's method; null: every method of the pattern
 * @param execution   where its handler runs; null: unset
 * @param limit       requests it runs at once (503 past it); 0: unset
 * @param deadline    how long its handler may take before the client gets 503; {@link Duration#ZERO}
 *                    for none; null: unset
 * @param maxBodySize its largest request body (413 past it); -1: unset
 */
public record RouteSettings(String path, String method, Execution execution, int limit, Duration deadline, long maxBodySize) {

    public RouteSettings {
        Objects.requireNonNull(path, "path");
        new PathPattern(path); // a malformed pattern is refused here
        if (method != null && (method.isEmpty() || !method.chars().allMatch(c -> c >= 'A' && c <= 'Z'))) {
            throw new IllegalArgumentException("a method is upper-case letters (GET, POST): " + method);
        }
        if (limit < 0) throw new IllegalArgumentException("a route limit must be >= 1: " + limit);
        if (deadline != null && deadline.isNegative()) throw new IllegalArgumentException("a deadline must be >= 0: " + deadline);
        if (maxBodySize < -1 || maxBodySize > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("max-body must be in 0..2GiB: " + maxBodySize);
        }
    }

    /** Nothing set yet for the routes of {@code path}. */
    public static RouteSettings of(String path) {
        return new RouteSettings(path, null, null, 0, null, -1);
    }

    public RouteSettings method(String method) {
        return new RouteSettings(path, method, execution, limit, deadline, maxBodySize);
    }

    public RouteSettings execution(Execution execution) {
        return new RouteSettings(path, method, execution, limit, deadline, maxBodySize);
    }

    public RouteSettings limit(int limit) {
        if (limit < 1) throw new IllegalArgumentException("a route limit must be >= 1: " + limit);
        return new RouteSettings(path, method, execution, limit, deadline, maxBodySize);
    }

    public RouteSettings deadline(Duration deadline) {
        return new RouteSettings(path, method, execution, limit, Objects.requireNonNull(deadline, "deadline"), maxBodySize);
    }

    public RouteSettings maxBodySize(long maxBodySize) {
        if (maxBodySize < 0) throw new IllegalArgumentException("max-body must be >= 0: " + maxBodySize);
        return new RouteSettings(path, method, execution, limit, deadline, maxBodySize);
    }

    /** Whether these settings apply to {@code route}: same pattern, and same method when one is named. */
    boolean appliesTo(Route route) {
        return route.path().equals(path) && (method == null || route.method().equals(method));
    }
}
