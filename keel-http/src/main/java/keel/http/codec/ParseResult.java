package keel.http.codec;

import keel.http.Request;

/** What {@link Http1Parser#parse} found in the bytes it was given. */
public sealed interface ParseResult {
    /** The buffer holds no complete message yet; read more and call again. */
    record NeedMore() implements ParseResult {
    }

    /** The head asked for {@code 100 Continue} and the client is waiting before it sends the body. */
    record ContinueExpected() implements ParseResult {
    }

    record Parsed(Request request) implements ParseResult {
    }

    /** The input is invalid or over a limit: answer {@code status} and close the connection. */
    record Failed(int status, String reason) implements ParseResult {
    }

    NeedMore NEED_MORE = new NeedMore();
    ContinueExpected CONTINUE_EXPECTED = new ContinueExpected();
}
