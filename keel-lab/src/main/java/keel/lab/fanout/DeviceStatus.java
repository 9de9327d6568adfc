package keel.lab.fanout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import keel.http.Response;
import keel.http.client.ClientRequest;
import keel.http.client.HttpClient;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A device's status from five upstream calls made at once (battery, firmware, location,
 * connectivity, alerts), combined into one answer. An aspect that fails is reported as an error
 * inside the answer. Async: the five calls complete on the client's loops. Blocking: each call on
 * its own virtual thread.
 */
public final class DeviceStatus {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final HttpClient client;
    private final String devicesUrl;

    /** @param devicesUrl the upstream's device API ({@code http://host:port/upstream/devices}) */
    public DeviceStatus(HttpClient client, String devicesUrl) {
        this.client = client;
        this.devicesUrl = devicesUrl;
    }

    public CompletionStage<ObjectNode> statusAsync(String id) {
        long start = System.nanoTime();
        ThreadTally tally = new ThreadTally();
        CompletableFuture<ObjectNode> status = new CompletableFuture<>();
        // Started on an event loop: every call's completion then runs on a loop, never on this thread.
        client.executor().execute(() -> {
            List<CompletableFuture<JsonNode>> calls = new ArrayList<>();
            for (String aspect : MockUpstream.DEVICE_ASPECTS) {
                calls.add(client.sendAsync(request(id, aspect)).handle((response, failure) -> {
                    tally.record();
                    return aspectOf(aspect, response, failure);
                }).toCompletableFuture());
            }
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).whenComplete((all, failure) ->
                    status.complete(combine("async", id, calls.stream().map(CompletableFuture::join).toList(), start, tally)));
        });
        return status;
    }

    public ObjectNode statusBlocking(String id) throws InterruptedException {
        long start = System.nanoTime();
        ThreadTally tally = new ThreadTally();
        List<Future<JsonNode>> calls = new ArrayList<>();
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (String aspect : MockUpstream.DEVICE_ASPECTS) {
                calls.add(threads.submit(() -> {
                    tally.record();
                    try {
                        return aspectOf(aspect, client.send(request(id, aspect)), null);
                    } catch (IOException e) {
                        return aspectOf(aspect, null, e);
                    }
                }));
            }
        }
        List<JsonNode> aspects = new ArrayList<>();
        for (Future<JsonNode> call : calls) aspects.add(call.resultNow());
        return combine("blocking", id, aspects, start, tally);
    }

    private ClientRequest request(String id, String aspect) {
        return ClientRequest.get(devicesUrl + "/" + URLEncoder.encode(id, StandardCharsets.UTF_8) + "/" + aspect).timeout(TIMEOUT);
    }

    private static JsonNode aspectOf(String aspect, Response response, Throwable failure) {
        if (failure != null) return FanOutJson.MAPPER.createObjectNode().put("error", FanOutRoutes.describe(failure));
        if (response.status() != 200) return FanOutJson.MAPPER.createObjectNode().put("error", "upstream answered " + response.status());
        try {
            return FanOutJson.MAPPER.readTree(response.body()).path(aspect);
        } catch (IOException e) {
            return FanOutJson.MAPPER.createObjectNode().put("error", "upstream answered invalid JSON");
        }
    }

    private static ObjectNode combine(String style, String id, List<JsonNode> aspects, long start, ThreadTally tally) {
        ObjectNode status = FanOutJson.MAPPER.createObjectNode();
        status.put("device", id).put("style", style);
        for (int i = 0; i < aspects.size(); i++) status.set(MockUpstream.DEVICE_ASPECTS.get(i), aspects.get(i));
        status.put("calls", aspects.size());
        status.put("elapsedMs", (System.nanoTime() - start) / 1_000_000);
        tally.report(status);
        return status;
    }
}
