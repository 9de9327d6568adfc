package keel.amqp.gateway;

import com.rabbitmq.client.Channel;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import keel.amqp.BrokerConnection;
import keel.amqp.BrokerProxy;
import keel.amqp.BrokerTest;
import keel.amqp.Services;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gateway's meters move with real publishes to the real broker, in the synchronous code (V1, V2
 * and V4 share it: virtual threads here) and the async one.
 */
class GatewayMetricsTest extends BrokerTest {
    private static double published(MeterRegistry registry, GatewayObserver.Result result) {
        return registry.get("keel.gateway.publishes").tag("result", result.label()).counter().count();
    }

    private static double refused(MeterRegistry registry, GatewayObserver.Refusal cause) {
        return registry.get("keel.gateway.rejected").tag("cause", cause.label()).counter().count();
    }

    private static double inFlight(MeterRegistry registry) {
        return registry.get("keel.gateway.publishes.in.flight").gauge().value();
    }

    @ParameterizedTest
    @EnumSource(value = GatewayMode.class, names = {"VIRTUAL_THREAD", "ASYNC"})
    void confirmsNacksAndReturnsAreCountedAndNothingStaysInFlight(GatewayMode mode) throws Exception {
        String queue = Services.newQueue(broker, "metrics");
        String full = "keel.test.metrics-full." + System.nanoTime();
        try (Channel channel = broker.createChannel()) {
            // A queue that holds nothing and rejects publishes when full: every publish is nacked.
            channel.queueDeclare(full, true, false, false, Map.of("x-max-length", 0, "x-overflow", "reject-publish"));
        }
        MeterRegistry registry = new SimpleMeterRegistry();
        try (GatewayServer server = GatewayServer.start(Services.options().mode(mode).build(), new GatewayMetrics(registry),
                options -> { }).awaitBroker()) {
            assertThat(server.publish("one", queue).statusCode()).isEqualTo(202);
            assertThat(server.publish("two", queue).statusCode()).isEqualTo(202);
            HttpResponse<String> returned = server.publish("unroutable", "keel.test.nowhere." + System.nanoTime());
            assertThat(returned.statusCode()).as(returned.body()).isEqualTo(502);
            HttpResponse<String> nacked = server.publish("refused", full);
            assertThat(nacked.statusCode()).as(nacked.body()).isEqualTo(502);

            assertThat(published(registry, GatewayObserver.Result.CONFIRMED)).isEqualTo(2);
            assertThat(published(registry, GatewayObserver.Result.RETURNED)).isEqualTo(1);
            assertThat(published(registry, GatewayObserver.Result.NACKED)).isEqualTo(1);
            assertThat(published(registry, GatewayObserver.Result.FAILED)).isZero();
            assertThat(published(registry, GatewayObserver.Result.TIMED_OUT)).isZero();
            for (GatewayObserver.Refusal cause : GatewayObserver.Refusal.values()) assertThat(refused(registry, cause)).as(cause.label()).isZero();
            assertThat(inFlight(registry)).isZero();
        } finally {
            Services.deleteQueue(broker, queue);
            Services.deleteQueue(broker, full);
        }
    }

    @ParameterizedTest
    @EnumSource(value = GatewayMode.class, names = {"VIRTUAL_THREAD", "ASYNC"})
    void aStalledBrokerShowsTheMessageInFlightUntilItTimesOut(GatewayMode mode) throws Exception {
        String queue = Services.newQueue(broker, "metrics-stall");
        MeterRegistry registry = new SimpleMeterRegistry();
        try (BrokerProxy proxy = new BrokerProxy();
             GatewayServer server = GatewayServer.start(Services.options().uri(proxy.uri()).mode(mode).maxOutstanding(1)
                     .confirmTimeout(Duration.ofMillis(500)).build(), new GatewayMetrics(registry), options -> { }).awaitBroker()) {
            assertThat(server.publish("warm", queue).statusCode()).isEqualTo(202);
            proxy.freeze();
            CompletableFuture<HttpResponse<String>> stalled = server.publishAsync("stalled", queue);
            awaitInFlight(registry, 1);
            if (mode == GatewayMode.ASYNC) {
                HttpResponse<String> shed = server.publish("one too many", queue);
                assertThat(shed.statusCode()).as(shed.body()).isEqualTo(503);
                assertThat(refused(registry, GatewayObserver.Refusal.MAX_OUTSTANDING)).isEqualTo(1);
            }
            assertThat(stalled.join().statusCode()).isEqualTo(504);
            proxy.thaw();

            assertThat(published(registry, GatewayObserver.Result.TIMED_OUT)).isEqualTo(1);
            assertThat(published(registry, GatewayObserver.Result.CONFIRMED)).isEqualTo(1);
            awaitInFlight(registry, 0);
        } finally {
            Services.deleteQueue(broker, queue);
        }
    }

    @ParameterizedTest
    @EnumSource(value = GatewayMode.class, names = {"VIRTUAL_THREAD", "ASYNC"})
    void a503WithoutABrokerIsCountedWithItsCause(GatewayMode mode) throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        MeterRegistry registry = new SimpleMeterRegistry();
        try (GatewayServer server = GatewayServer.start(Services.options().uri("amqp://guest:guest@127.0.0.1:" + closedPort)
                .mode(mode).build(), new GatewayMetrics(registry), options -> { })) {
            server.awaitState(BrokerConnection.State.DOWN, Duration.ofSeconds(10));
            assertThat(server.publish("nowhere to go", null).statusCode()).isEqualTo(503);
            assertThat(server.publish("still nowhere", null).statusCode()).isEqualTo(503);

            assertThat(refused(registry, GatewayObserver.Refusal.BROKER_DOWN)).isEqualTo(2);
            assertThat(inFlight(registry)).isZero();
        }
    }

    @Test
    void eachBrokerStateRefusesWithItsOwnCause() {
        assertThat(Outcome.refusalOf(BrokerConnection.State.UP)).isNull();
        assertThat(Outcome.refusalOf(BrokerConnection.State.CONNECTING)).isEqualTo(GatewayObserver.Refusal.BROKER_CONNECTING);
        assertThat(Outcome.refusalOf(BrokerConnection.State.DOWN)).isEqualTo(GatewayObserver.Refusal.BROKER_DOWN);
        assertThat(Outcome.refusalOf(BrokerConnection.State.BLOCKED)).isEqualTo(GatewayObserver.Refusal.BROKER_BLOCKED);
        assertThat(Outcome.refusalOf(BrokerConnection.State.CLOSED)).isEqualTo(GatewayObserver.Refusal.STOPPING);
    }

    private static void awaitInFlight(MeterRegistry registry, double expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (inFlight(registry) != expected) {
            if (System.nanoTime() > deadline) throw new AssertionError("in flight " + inFlight(registry) + ", expected " + expected);
            Thread.sleep(10);
        }
    }
}
