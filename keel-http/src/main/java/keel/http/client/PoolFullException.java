package keel.http.client;

/**
 * A request refused at once: its host's pool had every connection busy and
 * {@code pool.max-pending-acquires} requests already waiting. Never retried.
 */
public final class PoolFullException extends HttpClientException {
    PoolFullException(String host, int maxConnections, int maxPending) {
        super("connection pool full for " + host + ": " + maxConnections + " connections busy and "
                + maxPending + " requests waiting");
    }
}
