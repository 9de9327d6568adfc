package keel.http.server;

import keel.http.Execution;

import java.time.Duration;
import java.util.Locale;

/**
 * A route as the running server sees it, for the {@code /keel/routes} admin view: each setting as it
 * applies, and where it came from.
 *
 * @param execution     the execution the route was declared or configured with, or the server's default
 * @param effective     where it runs now: {@code VIRTUAL_THREAD} once the guard offloaded it
 * @param offloaded     true once the guard caught it blocking an event loop (policy {@code offload})
 * @param blockedEvents how many times the watchdog caught it blocking a loop
 * @param maxConcurrent its concurrency limit, 0 for none
 * @param deadline      its handler deadline, {@link Duration#ZERO} for none
 * @param maxBodySize   its largest request body
 * @param sources       where each setting came from
 */
public record RouteInfo(String method, String path, Execution execution, Execution effective, boolean offloaded,
                        long blockedEvents, int maxConcurrent, Duration deadline, long maxBodySize, Sources sources) {

    /** Where a route's setting came from. */
    public enum Source {
        /** The server's: nothing set it for this route. */
        DEFAULT,
        /** The code that declared the route ({@code router.with(..)}, {@code limit(..)}, …). */
        CODE,
        /** The {@code routes:} section of the configuration, which wins over the code. */
        CONFIGURATION,
        /** The guard, which moved the route off the event loop ({@code guard.on-blocked: offload}). */
        GUARD;

        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Where each setting came from; {@code execution} is the effective one's ({@link Source#GUARD} once offloaded). */
    public record Sources(Source execution, Source limit, Source deadline, Source maxBodySize) {
    }
}
