package keel.http.codec;

import keel.http.Headers;

/** What {@link Http1ResponseParser#parse} found. */
public sealed interface ResponseEvent {
    /** The buffer holds nothing more to report; read more and call again. */
    record NeedMore() implements ResponseEvent {
    }

    /**
     * The status line and header fields of a final response (1xx interim responses other than 101 are
     * skipped). {@code bodyLength}: the Content-Length, or -1 when the body is chunked or runs until the
     * connection closes, 0 for no body.
     */
    record Head(int status, String reason, Headers headers, long bodyLength, boolean keepAlive) implements ResponseEvent {
    }

    /** Body bytes that arrived (a copy the caller owns; chunked framing removed). */
    record Body(byte[] bytes) implements ResponseEvent {
    }

    /** The response is complete; call {@link Http1ResponseParser#expect} before the next one. */
    record End() implements ResponseEvent {
    }

    /** Invalid input or a limit: the connection must be closed. */
    record Failed(String reason) implements ResponseEvent {
    }

    NeedMore NEED_MORE = new NeedMore();
    End END = new End();
}
