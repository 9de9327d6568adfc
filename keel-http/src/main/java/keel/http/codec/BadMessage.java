package keel.http.codec;

/**
 * Control flow for invalid input inside the HTTP/1.1 parsers; it never escapes their {@code parse}
 * methods. {@code status} is what a server answers when the message was a request; the response
 * parser only keeps the reason.
 */
final class BadMessage extends RuntimeException {
    final int status;

    BadMessage(int status, String reason) {
        super(reason, null, false, false);
        this.status = status;
    }

    /** Invalid syntax: 400 for a request. */
    BadMessage(String reason) {
        this(400, reason);
    }
}
