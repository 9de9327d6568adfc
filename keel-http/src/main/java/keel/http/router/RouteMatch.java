package keel.http.router;

import java.util.Map;
import java.util.Set;

/** The router's answer for one request. */
public sealed interface RouteMatch {
    record Found(Route route, Map<String, String> pathParams) implements RouteMatch {
    }

    record NotFound() implements RouteMatch {
    }

    /** The path exists for other methods, listed for the {@code Allow} header. */
    record MethodNotAllowed(Set<String> allowed) implements RouteMatch {
    }

    NotFound NOT_FOUND = new NotFound();
}
