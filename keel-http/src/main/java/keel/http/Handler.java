package keel.http;

/**
 * User code that answers a request. The same handler object runs under any execution; which thread
 * calls it depends on the route's execution ({@code EVENT_LOOP}: the connection's loop thread, where
 * it must not block; {@code WORKER_POOL}: a pool thread; {@code VIRTUAL_THREAD}: a virtual thread).
 *
 * <p>Throwing {@link HttpStatusException} answers with its status; any other exception answers 500.
 */
@FunctionalInterface
public interface Handler {
    Response handle(Request request) throws Exception;
}
