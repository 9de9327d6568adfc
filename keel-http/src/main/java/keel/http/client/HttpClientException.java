package keel.http.client;

import java.io.IOException;

/** A call that failed in the client: a protocol error, a response over a limit, a connection closed early, a closed client. */
public class HttpClientException extends IOException {
    public HttpClientException(String message) {
        super(message);
    }

    public HttpClientException(String message, Throwable cause) {
        super(message, cause);
    }
}
