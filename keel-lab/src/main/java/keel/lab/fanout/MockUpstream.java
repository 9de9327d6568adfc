package keel.lab.fanout;

import com.fasterxml.jackson.databind.JsonNode;
import keel.core.loop.EventLoop;
import keel.http.Execution;
import keel.http.HttpStatusException;
import keel.http.Request;
import keel.http.Response;
import keel.http.router.Router;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The embedded mock upstream: an external address-cleaning API and a device API that answer after a
 * delay, as remote services do. The wait is a timer on the connection's event loop, so a thousand
 * waiting calls hold no thread. A request's {@code delay-ms} query parameter overrides the delay;
 * an address with {@code "fail": true} is answered 503, as an upstream hiccup would be.
 * {@code GET /upstream/stats} says how many refine calls arrived and how many ran at once at most.
 */
public final class MockUpstream {
    private static final Response REFINED = Response.json("""
            {"street":"1 Canal Street","city":"Amsterdam","postcode":"1011 AB","country":"NL","verified":true}""");
    private static final Map<String, String> ASPECTS = Map.of(
            "battery", "{\"level\":87,\"charging\":false}",
            "firmware", "{\"version\":\"2.4.1\",\"upToDate\":true}",
            "location", "{\"lat\":52.3731,\"lon\":4.8922}",
            "connectivity", "{\"signal\":-67,\"network\":\"lte\"}",
            "alerts", "{\"open\":0}");
    public static final java.util.List<String> DEVICE_ASPECTS = java.util.List.of("battery", "firmware", "location", "connectivity", "alerts");

    private final AtomicInteger refineCalls = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger peakInFlight = new AtomicInteger();

    /** Registers the mock's routes on {@code router}: it answers after {@code delay}. */
    public static MockUpstream register(Router router, Duration delay) {
        MockUpstream upstream = new MockUpstream();
        Router onLoop = router.with(Execution.EVENT_LOOP);
        onLoop.postAsync("/upstream/refine-address", request -> upstream.refineAfter(delayOf(request, delay), request));
        onLoop.get("/upstream/stats", request -> Response.json("{\"refineCalls\":" + upstream.refineCalls.get()
                + ",\"inFlight\":" + upstream.inFlight.get() + ",\"peakInFlight\":" + upstream.peakInFlight.get() + "}"));
        onLoop.getAsync("/upstream/devices/{id}/{aspect}", request -> after(delayOf(request, delay), () -> {
            String aspect = ASPECTS.get(request.pathParam("aspect"));
            if (aspect == null) return Response.text(404, "no such device aspect: " + request.pathParam("aspect"));
            return Response.json("{\"device\":" + FanOutJson.MAPPER.valueToTree(request.pathParam("id")) + ",\"" + request.pathParam("aspect") + "\":" + aspect + "}");
        }));
        return upstream;
    }

    private CompletionStage<Response> refineAfter(Duration delay, Request request) throws InterruptedException {
        refineCalls.incrementAndGet();
        peakInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        return after(delay, () -> {
            inFlight.decrementAndGet();
            return refine(request);
        });
    }

    /** Refine calls received so far. */
    public int refineCalls() {
        return refineCalls.get();
    }

    /** The most refine calls that waited at the same time. */
    public int peakInFlight() {
        return peakInFlight.get();
    }

    private static Response refine(Request request) {
        try {
            JsonNode address = FanOutJson.MAPPER.readTree(request.body());
            if (address == null || !address.isObject()) return Response.text(400, "expected an address as a JSON object");
            if (address.path("fail").asBoolean(false)) return Response.text(503, "address service unavailable");
            return REFINED;
        } catch (IOException e) {
            return Response.text(400, "invalid JSON: " + e.getMessage());
        }
    }

    private static Duration delayOf(Request request, Duration fallback) {
        String text = request.queryParam("delay-ms").orElse(null);
        if (text == null) return fallback;
        try {
            long ms = Long.parseLong(text);
            if (ms >= 0 && ms <= 60_000) return Duration.ofMillis(ms);
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new HttpStatusException(400, "delay-ms must be an integer in 0..60000, got '" + text + "'");
    }

    /**
     * Answers after {@code delay}: on an event loop a timer completes the answer; on the blocking
     * transport (no loop) the connection's own thread waits.
     */
    static CompletionStage<Response> after(Duration delay, Supplier<Response> answer) throws InterruptedException {
        EventLoop loop = EventLoop.current();
        if (loop == null) {
            Thread.sleep(delay);
            return CompletableFuture.completedFuture(answer.get());
        }
        CompletableFuture<Response> result = new CompletableFuture<>();
        loop.schedule(delay.toNanos(), TimeUnit.NANOSECONDS, () -> {
            try {
                result.complete(answer.get());
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }
}
