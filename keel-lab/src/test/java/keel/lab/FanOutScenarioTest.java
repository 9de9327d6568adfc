package keel.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import keel.http.Execution;
import keel.http.server.ServerOptions;
import keel.http.server.Threads;
import keel.http.server.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The client scenarios against the embedded mock upstream, in every execution and transport. */
class FanOutScenarioTest {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final LabSettings FAST_UPSTREAM = LabSettings.defaults().withUpstreamDelay(Duration.ofMillis(20));
    /**
     * For the tests that count calls in flight: ten calls reach the upstream at once only if the
     * last of them arrives before the first is answered, and opening ten connections at once on a
     * busy two-core machine can take longer than 20 ms.
     */
    private static final LabSettings PACED_UPSTREAM = LabSettings.defaults().withUpstreamDelay(Duration.ofMillis(150));

    static Stream<Arguments> modes() {
        return Stream.of(
                Arguments.of(Transport.NIO, Execution.EVENT_LOOP),
                Arguments.of(Transport.NIO, Execution.WORKER_POOL),
                Arguments.of(Transport.NIO, Execution.VIRTUAL_THREAD),
                Arguments.of(Transport.BLOCKING, Execution.VIRTUAL_THREAD));
    }

    private static LabApp start(Transport transport, Execution execution) throws Exception {
        return start(transport, execution, FAST_UPSTREAM);
    }

    private static LabApp start(Transport transport, Execution execution, LabSettings settings) throws Exception {
        ServerOptions options = ServerOptions.builder().host("127.0.0.1").port(0).loops(2)
                .transport(transport).execution(execution).threads(Threads.VIRTUAL).build();
        return LabApp.start(options, settings);
    }

    /** {@code count} orders with both addresses; order 3's secondary address is one the upstream refuses. */
    private static String orders(int count) {
        StringBuilder json = new StringBuilder("[");
        for (int i = 0; i < count; i++) {
            if (i > 0) json.append(',');
            json.append("{\"id\":\"o").append(i).append("\",\"primary\":{\"street\":\"").append(i).append(" Main St\"},")
                    .append("\"secondary\":{\"street\":\"PO Box ").append(i).append('"').append(i == 3 ? ",\"fail\":true" : "").append("}}");
        }
        return json.append(']').toString();
    }

    private static HttpResponse<String> post(LabApp app, String path, String body) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.server().port() + path))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(LabApp app, String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.server().port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("modes")
    void refinesABatchAndReportsAFailedItemWithoutFailingTheBatch(Transport transport, Execution execution) throws Exception {
        try (LabApp app = start(transport, execution, PACED_UPSTREAM)) {
            HttpResponse<String> response = post(app, "/orders/refine", orders(25));
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            JsonNode batch = JSON.readTree(response.body());
            assertThat(batch.get("calls").asInt()).isEqualTo(50);
            assertThat(batch.get("refined").size()).isEqualTo(25);
            assertThat(batch.at("/refined/o0/primary/city").asText()).isEqualTo("Amsterdam");
            assertThat(batch.at("/refined/o3/secondary").isMissingNode()).isTrue();
            assertThat(batch.get("failures")).hasSize(1);
            assertThat(batch.at("/failures/0/order").asText()).isEqualTo("o3");
            assertThat(batch.at("/failures/0/error").asText()).isEqualTo("upstream answered 503");
            // The async form completes its calls on the event loops: no thread beyond them.
            assertThat(batch.at("/threads/beyondLoops").asInt()).isZero();
            assertThat(batch.at("/threads/handler").asText()).isEqualTo(switch (execution) {
                case EVENT_LOOP -> "event-loop";
                case WORKER_POOL -> "platform";
                case VIRTUAL_THREAD -> "virtual";
            });
            // 50 calls and one retry of the refused address; never more than 10 at once.
            assertThat(app.upstream().refineCalls()).isEqualTo(51);
            assertThat(app.upstream().peakInFlight()).isEqualTo(10);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("modes")
    void fansOutToFiveCallsAndCombinesThem(Transport transport, Execution execution) throws Exception {
        try (LabApp app = start(transport, execution)) {
            HttpResponse<String> response = get(app, "/devices/d-42/status");
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            JsonNode status = JSON.readTree(response.body());
            assertThat(status.get("device").asText()).isEqualTo("d-42");
            assertThat(status.at("/battery/level").asInt()).isEqualTo(87);
            assertThat(status.at("/firmware/version").asText()).isEqualTo("2.4.1");
            assertThat(status.get("calls").asInt()).isEqualTo(5);
            assertThat(status.at("/threads/beyondLoops").asInt()).isZero();
        }
    }

    @Test
    void theBlockingStyleUsesAThreadPerCallAndIsRefusedOnTheEventLoop() throws Exception {
        try (LabApp app = start(Transport.NIO, Execution.VIRTUAL_THREAD, PACED_UPSTREAM)) {
            JsonNode batch = JSON.readTree(post(app, "/orders/refine?style=blocking", orders(25)).body());
            assertThat(batch.get("style").asText()).isEqualTo("blocking");
            assertThat(batch.get("failures")).hasSize(1);
            assertThat(batch.at("/threads/beyondLoops").asInt()).isEqualTo(50);
            assertThat(app.upstream().peakInFlight()).isEqualTo(10);
            JsonNode status = JSON.readTree(get(app, "/devices/d-1/status?style=blocking").body());
            assertThat(status.at("/threads/beyondLoops").asInt()).isEqualTo(5);
        }
        try (LabApp app = start(Transport.NIO, Execution.EVENT_LOOP)) {
            HttpResponse<String> refused = post(app, "/orders/refine?style=blocking", orders(2));
            assertThat(refused.statusCode()).isEqualTo(400);
            assertThat(refused.body()).contains("would block the event loop");
        }
    }

    @Test
    void badBatchesGetClearAnswers() throws Exception {
        try (LabApp app = start(Transport.NIO, Execution.EVENT_LOOP)) {
            assertThat(post(app, "/orders/refine", "{not json").statusCode()).isEqualTo(400);
            HttpResponse<String> noPrimary = post(app, "/orders/refine", "[{\"id\":\"o1\"}]");
            assertThat(noPrimary.statusCode()).isEqualTo(400);
            assertThat(noPrimary.body()).contains("\"primary\"");
            assertThat(post(app, "/orders/refine", orders(1001)).statusCode()).isEqualTo(413);
            assertThat(post(app, "/orders/refine?style=sideways", orders(1)).statusCode()).isEqualTo(400);
            assertThat(post(app, "/upstream/refine-address?delay-ms=-1", "{}").statusCode()).isEqualTo(400);
        }
    }
}
