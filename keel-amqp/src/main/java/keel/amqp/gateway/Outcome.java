package keel.amqp.gateway;

import keel.http.HttpStatusException;
import keel.http.Response;
import keel.http.server.AdminRoutes;

/**
 * What became of one publish, as the route answers it. 202 only for a message the broker confirmed;
 * 503 (with {@code Retry-After}) when Keel refused it without publishing; 502 when the broker
 * nacked, returned or lost it; 504 when no confirm came within the timeout.
 */
record Outcome(int status, String reason) {

    static Outcome confirmed(Message message) {
        return new Outcome(202, "{\"status\":\"confirmed\",\"messageId\":" + AdminRoutes.quote(message.messageId())
                + ",\"routingKey\":" + AdminRoutes.quote(message.routingKey()) + "}");
    }

    /** Not published: shed by Keel, or no usable broker connection. Safe to retry. */
    static Outcome refused(String reason) {
        return new Outcome(503, reason);
    }

    /** Published, and the broker nacked or returned it, or the connection broke before its confirm. */
    static Outcome failed(String reason) {
        return new Outcome(502, reason);
    }

    static Outcome timedOut(long millis) {
        return new Outcome(504, "no confirm from the broker within " + millis + " ms; the message may or may not be queued");
    }

    static Outcome of(HttpStatusException badRequest) {
        return new Outcome(badRequest.status(), badRequest.reason());
    }

    Response toResponse() {
        if (status == 202) return Response.bytes(202, "application/json", reason.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Response response = Response.text(status, reason + "\n");
        return status == 503 ? response.header("Retry-After", "1") : response;
    }
}
