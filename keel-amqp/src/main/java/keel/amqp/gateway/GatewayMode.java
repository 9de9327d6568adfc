package keel.amqp.gateway;

import keel.http.Execution;

import java.util.Locale;

/**
 * The four ways the gateway route publishes: the same synchronous publish-and-wait code under three
 * executions (V1, V2, V4), and one where no thread waits for the confirm (V3).
 */
public enum GatewayMode {
    /** V1: publish and wait for the confirm on the event loop. The failure, kept so it can be measured. */
    EVENT_LOOP(Execution.EVENT_LOOP),
    /** V2: the same synchronous code on the bounded worker pool; full ⇒ 503. */
    WORKER_POOL(Execution.WORKER_POOL),
    /** V3: publisher threads behind a bounded queue; the confirm callback completes the response. */
    ASYNC(Execution.EVENT_LOOP),
    /** V4: the same synchronous code on a virtual thread per request; over the limit ⇒ 503. */
    VIRTUAL_THREAD(Execution.VIRTUAL_THREAD);

    private final Execution execution;

    GatewayMode(Execution execution) {
        this.execution = execution;
    }

    /** Where the route's handler runs: for {@link #ASYNC}, only the hand-off, on the loop. */
    public Execution execution() {
        return execution;
    }

    /** The configuration word: {@code event-loop}, {@code worker-pool}, {@code async}, {@code virtual-thread}. */
    public String word() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
