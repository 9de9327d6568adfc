package keel.lab.fanout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import keel.core.loop.EventLoop;
import keel.http.HttpStatusException;
import keel.http.Request;
import keel.http.Response;
import keel.http.client.HttpClient;
import keel.http.router.Router;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The client scenarios: {@code POST /orders/refine} (a batch through the address service) and
 * {@code GET /devices/{id}/status} (a fan-out of five calls). Both take {@code ?style=async} (the
 * default: calls complete on the client's loops, no thread per call) or {@code ?style=blocking} (a
 * virtual thread per call, which must not be waited for on an event loop). They run under the
 * server's default execution, so {@code --execution} compares the executions on the same code, and
 * every answer says how many threads the fan-out used.
 */
public final class FanOutRoutes {
    /** More orders than this in one batch is refused (413): a batch is held in memory whole. */
    static final int MAX_ORDERS = 1000;

    /** The scenario objects, ready once the server's loops (which the client shares) exist. */
    public record Scenarios(Refiner refiner, DeviceStatus devices) {
        public static Scenarios create(HttpClient client, String upstreamBase) {
            return new Scenarios(new Refiner(client, upstreamBase + "/upstream/refine-address"),
                    new DeviceStatus(client, upstreamBase + "/upstream/devices"));
        }
    }

    private FanOutRoutes() {
    }

    public static Router register(Router router, Supplier<Scenarios> scenarios) {
        return router
                .postAsync("/orders/refine", request -> {
                    Refiner refiner = ready(scenarios).refiner();
                    JsonNode orders = orders(request);
                    if (blocking(request)) return CompletableFuture.completedFuture(json(refiner.refineBlocking(orders)));
                    return refiner.refineAsync(orders).thenApply(FanOutRoutes::json);
                })
                .getAsync("/devices/{id}/status", request -> {
                    DeviceStatus devices = ready(scenarios).devices();
                    if (blocking(request)) return CompletableFuture.completedFuture(json(devices.statusBlocking(request.pathParam("id"))));
                    return devices.statusAsync(request.pathParam("id")).thenApply(FanOutRoutes::json);
                });
    }

    private static Scenarios ready(Supplier<Scenarios> scenarios) {
        Scenarios ready = scenarios.get();
        if (ready == null) throw new HttpStatusException(503, "the HTTP client is not started yet");
        return ready;
    }

    private static boolean blocking(Request request) {
        String style = request.queryParam("style").orElse("async");
        switch (style) {
            case "async" -> {
                return false;
            }
            case "blocking" -> {
                if (EventLoop.current() != null) {
                    throw new HttpStatusException(400, "style=blocking waits for its calls and would block the event loop:"
                            + " use style=async here, or run the server with --execution virtual-thread or worker-pool");
                }
                return true;
            }
            default -> throw new HttpStatusException(400, "style must be async or blocking, got '" + style + "'");
        }
    }

    private static JsonNode orders(Request request) {
        JsonNode orders;
        try {
            orders = FanOutJson.MAPPER.readTree(request.body());
        } catch (IOException e) {
            throw new HttpStatusException(400, "invalid JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
        if (orders != null && orders.size() > MAX_ORDERS) throw new HttpStatusException(413, "more than " + MAX_ORDERS + " orders in one batch");
        try {
            Refiner.items(orders);
        } catch (IllegalArgumentException e) {
            throw new HttpStatusException(400, e.getMessage());
        }
        return orders;
    }

    private static Response json(ObjectNode node) {
        try {
            return Response.json(FanOutJson.MAPPER.writeValueAsBytes(node));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A failed call in one line: the exception's kind and message, without the CompletionException wrapper. */
    static String describe(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }
}
