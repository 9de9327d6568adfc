package keel.http.client;

import java.time.Duration;

/** A call that ran out of time; {@link #kind()} says which timeout fired. */
public final class ClientTimeoutException extends HttpClientException {
    /** The timeouts of a call, in the order a call meets them. */
    public enum Kind {
        /** waiting for a pooled connection ({@code pool.acquire-timeout}) */
        ACQUIRE,
        /** opening the TCP connection ({@code connect-timeout}) */
        CONNECT,
        /** waiting for the response's first byte ({@code response-timeout}) */
        RESPONSE,
        /** the whole attempt ({@code request-timeout}) */
        REQUEST
    }

    private final Kind kind;

    ClientTimeoutException(Kind kind, Duration after, String target) {
        super(kind.name().toLowerCase(java.util.Locale.ROOT) + " timeout after " + after.toMillis() + " ms: " + target);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
