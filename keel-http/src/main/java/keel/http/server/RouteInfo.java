package keel.http.server;

/**
 * A route as the running server sees it, for the {@code /keel/routes} admin view.
 *
 * @param execution     the execution the route was declared with, or the server's default
 * @param effective     where it runs now: {@code VIRTUAL_THREAD} once the guard offloaded it
 * @param offloaded     true once the guard caught it blocking an event loop (policy {@code offload})
 * @param blockedEvents how many times the watchdog caught it blocking a loop
 * @param maxConcurrent its concurrency limit, 0 for none
 */
public record RouteInfo(String method, String path, Execution execution, Execution effective, boolean offloaded,
                        long blockedEvents, int maxConcurrent) {
}
