package keel.http.client;

import java.util.Locale;

/**
 * Hears what an {@link HttpClient} does, for metrics; set with {@link ClientOptions.Builder#observer}.
 * Every method has an empty default, so an observer implements only what it needs.
 *
 * <p>Threads: every method runs on the event loop of the pool or call it reports (one of the
 * client's loops, or a server's loop a call was made on), so it must be cheap and never block.
 * {@link #host} is asked once for each pool made for a host on a loop; the {@link Host} it returns
 * hears that pool's events from then on, with no lookup per request.
 */
public interface ClientObserver {
    ClientObserver NONE = new ClientObserver() {
    };

    /** How a call ended, as its caller saw it. */
    enum Outcome {
        /** A response arrived, whatever its status. */
        OK,
        /** A timeout fired: acquire, connect, response or the whole request ({@link ClientTimeoutException}). */
        TIMEOUT,
        /** No connection could be made: the name did not resolve, the connect or the TLS handshake failed. */
        CONNECT_FAILED,
        /** The host's pool had no connection free and its waiting list was full ({@link PoolFullException}). */
        POOL_FULL,
        /** Anything else: a connection lost under the exchange, an invalid or oversized response, a closed client. */
        FAILED;

        /** The label value: {@code ok}, {@code timeout}, … */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Why a request was sent again. */
    enum Retry {
        /** The {@link RetryPolicy} allowed another attempt. */
        POLICY,
        /** A reused connection turned out closed by the server before any response byte: sent once more at once. */
        STALE_CONNECTION;

        /** The label value: {@code policy} or {@code stale_connection}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * What hears the events of {@code host} ({@code name:port}). Asked on a loop thread each time a
     * pool for that host is made (again after an earlier one emptied), so it may look a cache up.
     */
    default Host host(String host) {
        return Host.NONE;
    }

    /** The events of one host's pools, on every loop. */
    interface Host {
        Host NONE = new Host() {
        };

        /**
         * One pool's counts moved by these amounts: connections open (those still connecting
         * included), idle in the pool, and requests waiting for a connection. Across every loop,
         * the sums of the deltas are the host's current counts.
         */
        default void onPoolChanged(int openDelta, int idleDelta, int pendingDelta) {
        }

        /** A call ended after {@code nanos} (from {@code sendAsync} to its last body byte; for {@code streamAsync}, to its head). */
        default void onCall(Outcome outcome, long nanos) {
        }

        /** A request is about to be sent again. */
        default void onRetry(Retry reason) {
        }
    }
}
