package keel.lab.fanout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import keel.http.Response;
import keel.http.client.ClientRequest;
import keel.http.client.HttpClient;
import keel.http.client.RetryPolicy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Refines a batch of orders' addresses through an upstream address service: each address (primary,
 * and secondary when present) is one call, at most {@link #CONCURRENCY} at once, each with a
 * {@link #TIMEOUT} and one retry after {@link #RETRY_DELAY}. A call that still fails becomes a
 * failure entry; the batch always answers.
 *
 * <p>Two styles, same calls. {@link #refineAsync} chains the calls on the client's event loops: ten
 * "lanes" each start their next call when the previous one completes, so no thread waits for any
 * call. {@link #refineBlocking} runs each call on its own virtual thread with the blocking
 * {@code send}, ten at a time.
 */
public final class Refiner {
    public static final int CONCURRENCY = 10;
    public static final Duration TIMEOUT = Duration.ofSeconds(5);
    public static final Duration RETRY_DELAY = Duration.ofMillis(100);
    /** The refine service is idempotent: refining an address twice answers the same. */
    private static final RetryPolicy RETRY = RetryPolicy.fixed(1, RETRY_DELAY).includingNonIdempotent();

    /** One address of one order. */
    record Item(String orderId, String which, JsonNode address) {
    }

    /** What one call gave: the refined address, or why it failed. */
    private record Outcome(JsonNode refined, String error) {
    }

    private final HttpClient client;
    private final String refineUrl;

    /** @param refineUrl the upstream's refine endpoint ({@code http://host:port/upstream/refine-address}) */
    public Refiner(HttpClient client, String refineUrl) {
        this.client = client;
        this.refineUrl = refineUrl;
    }

    /** The orders' addresses, in order; throws IllegalArgumentException for input that is not a list of orders. */
    static List<Item> items(JsonNode orders) {
        if (orders == null || !orders.isArray()) throw new IllegalArgumentException("expected a JSON list of orders");
        List<Item> items = new ArrayList<>();
        for (JsonNode order : orders) {
            String id = order.path("id").asText("");
            JsonNode primary = order.get("primary");
            if (id.isEmpty() || primary == null || !primary.isObject()) {
                throw new IllegalArgumentException("every order needs an \"id\" and a \"primary\" address object");
            }
            items.add(new Item(id, "primary", primary));
            JsonNode secondary = order.get("secondary");
            if (secondary != null && secondary.isObject()) items.add(new Item(id, "secondary", secondary));
        }
        return items;
    }

    public CompletionStage<ObjectNode> refineAsync(JsonNode orders) {
        AsyncBatch batch = new AsyncBatch(items(orders));
        // Started on an event loop: every call's completion then runs on a loop, never on this thread.
        client.executor().execute(batch::start);
        return batch.done;
    }

    /** The state of one async batch: its outcomes, the next item to call, the calls still running. */
    private final class AsyncBatch {
        final List<Item> items;
        final AtomicReferenceArray<Outcome> outcomes;
        final AtomicInteger next = new AtomicInteger();
        final AtomicInteger remaining;
        final ThreadTally tally = new ThreadTally();
        final long start = System.nanoTime();
        final CompletableFuture<ObjectNode> done = new CompletableFuture<>();

        AsyncBatch(List<Item> items) {
            this.items = items;
            this.outcomes = new AtomicReferenceArray<>(items.size());
            this.remaining = new AtomicInteger(items.size());
        }

        void start() {
            if (items.isEmpty()) done.complete(report("async", items, outcomes, start, tally));
            for (int lane = 0; lane < Math.min(CONCURRENCY, items.size()); lane++) callNext();
        }

        /** One lane's step: call the next item; when it completes, record it and take the next. */
        void callNext() {
            int index = next.getAndIncrement();
            if (index >= items.size()) return;
            client.sendAsync(request(items.get(index))).whenComplete((response, failure) -> {
                tally.record();
                outcomes.set(index, outcome(response, failure));
                if (remaining.decrementAndGet() == 0) done.complete(report("async", items, outcomes, start, tally));
                else callNext();
            });
        }
    }

    public ObjectNode refineBlocking(JsonNode orders) throws InterruptedException {
        List<Item> items = items(orders);
        long start = System.nanoTime();
        ThreadTally tally = new ThreadTally();
        AtomicReferenceArray<Outcome> outcomes = new AtomicReferenceArray<>(items.size());
        Semaphore permits = new Semaphore(CONCURRENCY);
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < items.size(); i++) {
                int index = i;
                threads.submit(() -> {
                    permits.acquireUninterruptibly();
                    try {
                        tally.record();
                        outcomes.set(index, outcome(client.send(request(items.get(index))), null));
                    } catch (IOException | InterruptedException | RuntimeException e) {
                        outcomes.set(index, outcome(null, e));
                    } finally {
                        permits.release();
                    }
                });
            }
        }
        return report("blocking", items, outcomes, start, tally);
    }

    private ClientRequest request(Item item) {
        return ClientRequest.of("POST", refineUrl).body("application/json", item.address().toString().getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .timeout(TIMEOUT).retry(RETRY);
    }

    private static Outcome outcome(Response response, Throwable failure) {
        if (failure != null) return new Outcome(null, FanOutRoutes.describe(failure));
        if (response.status() != 200) return new Outcome(null, "upstream answered " + response.status());
        try {
            return new Outcome(FanOutJson.MAPPER.readTree(response.body()), null);
        } catch (IOException e) {
            return new Outcome(null, "upstream answered invalid JSON: " + e.getMessage());
        }
    }

    private static ObjectNode report(String style, List<Item> items, AtomicReferenceArray<Outcome> outcomes, long start, ThreadTally tally) {
        ObjectNode report = FanOutJson.MAPPER.createObjectNode();
        report.put("style", style);
        report.put("calls", items.size());
        ObjectNode refined = report.putObject("refined");
        ArrayNode failures = report.putArray("failures");
        for (int i = 0; i < items.size(); i++) {
            Item item = items.get(i);
            Outcome outcome = outcomes.get(i);
            if (outcome.error() == null) {
                ObjectNode order = refined.has(item.orderId()) ? (ObjectNode) refined.get(item.orderId()) : refined.putObject(item.orderId());
                order.set(item.which(), outcome.refined());
            } else {
                failures.addObject().put("order", item.orderId()).put("address", item.which()).put("error", outcome.error());
            }
        }
        report.put("elapsedMs", (System.nanoTime() - start) / 1_000_000);
        tally.report(report);
        return report;
    }
}
