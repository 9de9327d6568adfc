package keel.amqp.gateway;

import keel.amqp.BrokerConnection;
import keel.core.log.Log;
import keel.http.HttpStatusException;
import keel.http.Response;
import keel.http.server.AdminRoutes;

/**
 * What became of one publish, as the route answers it. 202 only for a message the broker confirmed;
 * 503 (with {@code Retry-After}) when Keel refused it without publishing, or the connection failed
 * before the message was sent; 502 when the broker nacked or returned it; 504 when no confirm came,
 * within the timeout or before the connection failed (its node died): the message may be queued. A published message
 * carries its {@link GatewayObserver.Result}, a refused one its {@link GatewayObserver.Refusal}
 * (a bad request has neither), for {@link #reportTo}.
 */
record Outcome(int status, String reason, GatewayObserver.Result result, GatewayObserver.Refusal refusal) {
    private static final Log LOG = Log.of(Outcome.class);

    static Outcome confirmed(Message message) {
        return new Outcome(202, "{\"status\":\"confirmed\",\"messageId\":" + AdminRoutes.quote(message.messageId())
                + ",\"routingKey\":" + AdminRoutes.quote(message.routingKey()) + "}", GatewayObserver.Result.CONFIRMED, null);
    }

    /** Not published: shed by Keel, or no usable broker connection. Safe to retry. */
    static Outcome refused(GatewayObserver.Refusal cause, String reason) {
        return new Outcome(503, reason, null, cause);
    }

    /** The refusal when {@code broker} cannot take a publish now, or null when it is up. */
    static Outcome unavailable(BrokerConnection broker) {
        BrokerConnection.State state = broker.state();
        GatewayObserver.Refusal cause = refusalOf(state);
        // The reason is read after the state: if the broker came back in between, this one refusal says so.
        return cause == null ? null : refused(cause, broker.unavailable().orElse("broker was " + state.word() + " a moment ago"));
    }

    /** Why a broker connection in {@code state} refuses a publish; null when it takes one. */
    static GatewayObserver.Refusal refusalOf(BrokerConnection.State state) {
        return switch (state) {
            case UP -> null;
            case CONNECTING -> GatewayObserver.Refusal.BROKER_CONNECTING;
            case BLOCKED -> GatewayObserver.Refusal.BROKER_BLOCKED;
            case DOWN -> GatewayObserver.Refusal.BROKER_DOWN;
            case CLOSED -> GatewayObserver.Refusal.STOPPING;
        };
    }

    static Outcome nacked() {
        return new Outcome(502, "the broker nacked the message", GatewayObserver.Result.NACKED, null);
    }

    static Outcome returned(String reason) {
        return new Outcome(502, reason, GatewayObserver.Result.RETURNED, null);
    }

    /** Published, and the connection or channel broke before the confirm: the message may or may not be queued. */
    static Outcome failed(String reason) {
        return new Outcome(504, reason + "; the message may or may not be queued", GatewayObserver.Result.FAILED, null);
    }

    static Outcome timedOut(long millis) {
        return new Outcome(504, "no confirm from the broker within " + millis + " ms; the message may or may not be queued",
                GatewayObserver.Result.TIMED_OUT, null);
    }

    static Outcome of(HttpStatusException badRequest) {
        return new Outcome(badRequest.status(), badRequest.reason(), null, null);
    }

    /** Tells {@code observer} the result or the refusal; a failing observer never changes the answer. */
    void reportTo(GatewayObserver observer) {
        try {
            if (result != null) observer.onPublished(result);
            else if (refusal != null) observer.onRefused(refusal);
        } catch (RuntimeException e) {
            LOG.warn("observer_failed", e, "event", "gateway_outcome");
        }
    }

    Response toResponse() {
        if (status == 202) return Response.bytes(202, "application/json", reason.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Response response = Response.text(status, reason + "\n");
        return status == 503 ? response.header("Retry-After", "1") : response;
    }
}
