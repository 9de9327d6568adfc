package keel.http;

/**
 * A request that must be answered with {@code status} and a short, client-safe {@code reason}.
 *
 * <p>The parser and the limits raise it for malformed input; handlers may throw it too (a bad query
 * parameter is a 400, not a 500). It is turned into a response in exactly one place.
 */
public final class HttpStatusException extends RuntimeException {
    private final int status;

    public HttpStatusException(int status, String reason) {
        super(reason, null, false, false);
        if (status < 400 || status > 599) throw new IllegalArgumentException("not an error status: " + status);
        this.status = status;
    }

    public int status() {
        return status;
    }

    public String reason() {
        return getMessage();
    }
}
