package keel.http.execution;

import keel.core.log.Log;
import keel.http.HttpStatusException;
import keel.http.Response;
import keel.http.client.ClientTimeoutException;

import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** The one place where errors become responses: a status and a short plain-text reason. */
public final class Responses {
    private static final Log LOG = Log.of(Responses.class);

    private Responses() {
    }

    public static Response error(int status, String reason) {
        return Response.text(status, reason + "\n");
    }

    static Response notFound() {
        return error(404, "no route for this path");
    }

    static Response methodNotAllowed(Set<String> allowed) {
        return error(405, "method not allowed").header("Allow", String.join(", ", allowed));
    }

    /** RFC 9110 §15.5.16: a body in a content coding Keel cannot decode; {@code Accept-Encoding} names the one it can. */
    static Response unsupportedContentCoding(String coding) {
        return error(415, "unsupported content coding: " + coding).header("Accept-Encoding", "gzip");
    }

    /** A fast refusal under load: the client may retry after a second. */
    public static Response overloaded(String reason) {
        return error(503, reason).header("Retry-After", "1");
    }

    /**
     * A handler's failure as a response: its {@link HttpStatusException}'s status; 504 when it failed on
     * a downstream call's timeout ({@link ClientTimeoutException}, however wrapped); else 500, logged.
     */
    static Response forException(Throwable failure, Object request) {
        Throwable cause = unwrap(failure);
        if (cause instanceof HttpStatusException status) return error(status.status(), status.reason());
        for (Throwable c = cause; c != null; c = c.getCause()) {
            if (c instanceof ClientTimeoutException timeout) return error(504, "upstream call timed out (" + timeout.kind().name().toLowerCase(java.util.Locale.ROOT) + ")");
        }
        LOG.error("handler_failed", cause, "request", request);
        return error(500, "internal server error");
    }

    static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
