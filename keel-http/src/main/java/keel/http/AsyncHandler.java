package keel.http;

import java.util.concurrent.CompletionStage;

/**
 * A handler that answers later: it returns at once and completes the stage, on any thread, with the
 * response. Keel writes the response on the connection's own loop whatever thread completes it.
 */
@FunctionalInterface
public interface AsyncHandler {
    CompletionStage<Response> handle(Request request) throws Exception;
}
