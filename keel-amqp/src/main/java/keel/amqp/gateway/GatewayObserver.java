package keel.amqp.gateway;

import java.util.Locale;

/**
 * Hears what the {@link Gateway} makes of each message, for metrics ({@link GatewayMetrics} binds it
 * to Micrometer). Methods run on whichever thread settles the message (a request's thread, a
 * publisher lane, the broker client's connection thread, the timeout sweeper): they must be cheap
 * and never block. Every method has an empty default.
 */
public interface GatewayObserver {
    GatewayObserver NONE = new GatewayObserver() {
    };

    /** What became of a message Keel published (or had queued to publish). */
    enum Result {
        /** The broker acked it and routed it to a queue: 202. */
        CONFIRMED,
        /** The broker nacked it: 502. */
        NACKED,
        /** The broker returned it as unroutable (no queue bound to its key): 502. */
        RETURNED,
        /** The connection or channel failed before its confirm: 504 (it may be queued). */
        FAILED,
        /** No confirm within {@code gateway.confirm-timeout}: 504. */
        TIMED_OUT;

        /** The label value: {@code confirmed}, {@code timed_out}, … */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Why the gateway answered 503 without publishing. */
    enum Refusal {
        /** The first broker connection is not made yet. */
        BROKER_CONNECTING,
        /** The broker is unreachable or the connection is lost; it is being recovered. */
        BROKER_DOWN,
        /** The broker blocks publishers (a memory or disk alarm). */
        BROKER_BLOCKED,
        /** Async mode: {@code gateway.max-outstanding} messages are queued or awaiting a confirm. */
        MAX_OUTSTANDING,
        /** Synchronous modes: every channel of {@code gateway.channels} stayed busy for the confirm timeout. */
        CHANNELS_BUSY,
        /** No channel could be opened on the connection. */
        NO_CHANNEL,
        /** The gateway is stopping. */
        STOPPING;

        /** The label value: {@code broker_down}, {@code max_outstanding}, … */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Once, as the gateway starts: gauges may read {@code gateway} from now on. */
    default void onStart(Gateway gateway) {
    }

    /** A message Keel accepted was answered with {@code result}. */
    default void onPublished(Result result) {
    }

    /** A request was answered 503, not published, because of {@code cause}. */
    default void onRefused(Refusal cause) {
    }
}
