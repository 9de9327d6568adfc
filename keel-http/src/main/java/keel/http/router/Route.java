package keel.http.router;

import keel.http.AsyncHandler;
import keel.http.Handler;
import keel.http.server.Execution;
import keel.http.ws.WsEndpoint;

/**
 * One route: a method, a path pattern, the handler, the execution it runs under (null: the server's
 * default) and how many requests it may run at once (0: no limit of its own; past it, 503).
 */
public record Route(String method, String path, Endpoint endpoint, Execution execution, int maxConcurrent) {

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
}
