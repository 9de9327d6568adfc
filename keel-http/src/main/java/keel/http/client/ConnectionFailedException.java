package keel.http.client;

/**
 * The connection failed under a call: refused, reset, or closed by the peer before the response
 * ended. A transport failure, so a {@link RetryPolicy} may try again, and a request that met it on a
 * reused connection before any response byte is sent once more by the pool.
 */
public final class ConnectionFailedException extends HttpClientException {
    ConnectionFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
