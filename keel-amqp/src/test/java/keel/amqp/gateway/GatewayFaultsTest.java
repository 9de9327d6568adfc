package keel.amqp.gateway;

import com.rabbitmq.client.Channel;
import keel.amqp.BrokerConnection;
import keel.amqp.BrokerProxy;
import keel.amqp.BrokerTest;
import keel.amqp.Services;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** What each mode answers when the broker is slow, away, refuses or loses a message: never 2xx unconfirmed. */
class GatewayFaultsTest extends BrokerTest {
    @ParameterizedTest
    @EnumSource(GatewayMode.class)
    void answers504WhenNoConfirmComesInTimeAndWorksAgainAfter(GatewayMode mode) throws Exception {
        String queue = Services.newQueue(broker, "timeout");
        try (BrokerProxy proxy = new BrokerProxy();
             GatewayServer server = GatewayServer.start(Services.options().uri(proxy.uri()).mode(mode)
                     .confirmTimeout(Duration.ofMillis(400)).build()).awaitBroker()) {
            assertThat(server.publish("warm", queue).statusCode()).isEqualTo(202);
            proxy.freeze();
            long start = System.nanoTime();
            HttpResponse<String> response = server.publish("stalled", queue);
            long tookMillis = (System.nanoTime() - start) / 1_000_000;
            assertThat(response.statusCode()).as(response.body()).isEqualTo(504);
            assertThat(response.body()).contains("no confirm from the broker within 400 ms");
            assertThat(tookMillis).isBetween(380L, 3_000L);
            if (mode == GatewayMode.EVENT_LOOP) {
                assertThat(server.server.blockedLoopEvents()).as("the watchdog saw the loop blocked").isPositive();
            }
            proxy.thaw();
            HttpResponse<String> after = server.publish("after", queue);
            assertThat(after.statusCode()).as(after.body()).isEqualTo(202);
            // "stalled" reached the broker once the proxy thawed: a 504 means "unknown", not "lost".
            assertThat(Services.drain(broker, queue)).contains("warm", "after");
        } finally {
            Services.deleteQueue(broker, queue);
        }
    }

    @ParameterizedTest
    @EnumSource(GatewayMode.class)
    void answers503NamingTheCauseWhileTheBrokerIsUnreachable(GatewayMode mode) throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        try (GatewayServer server = GatewayServer.start(Services.options().uri("amqp://guest:guest@127.0.0.1:" + closedPort)
                .mode(mode).build())) {
            server.awaitState(BrokerConnection.State.DOWN, Duration.ofSeconds(10));
            HttpResponse<String> response = server.publish("nowhere to go", null);
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(response.body()).contains("broker amqp://127.0.0.1:" + closedPort + " unreachable").contains("Connection refused");
            HttpResponse<String> health = server.get("/keel/health");
            assertThat(health.statusCode()).isEqualTo(503);
            assertThat(health.body()).contains("\"status\":\"down\"").contains("\"state\":\"down\"").contains("Connection refused");
        }
    }

    @ParameterizedTest
    @EnumSource(GatewayMode.class)
    void answers502WhenTheBrokerNacks(GatewayMode mode) throws Exception {
        String queue = "keel.test.full." + System.nanoTime();
        try (Channel channel = broker.createChannel()) {
            // A queue that holds nothing and rejects publishes when full: every publish is nacked.
            channel.queueDeclare(queue, true, false, false, Map.of("x-max-length", 0, "x-overflow", "reject-publish"));
        }
        try (GatewayServer server = GatewayServer.start(Services.options().mode(mode).build()).awaitBroker()) {
            HttpResponse<String> response = server.publish("refused", queue);
            assertThat(response.statusCode()).isEqualTo(502);
            assertThat(response.body()).contains("the broker nacked the message");
        } finally {
            Services.deleteQueue(broker, queue);
        }
    }

    @ParameterizedTest
    @EnumSource(GatewayMode.class)
    void answers502WhenNoQueueTakesTheMessage(GatewayMode mode) throws Exception {
        try (GatewayServer server = GatewayServer.start(Services.options().mode(mode).build()).awaitBroker()) {
            HttpResponse<String> response = server.publish("unroutable", "keel.test.nowhere." + System.nanoTime());
            assertThat(response.statusCode()).isEqualTo(502);
            assertThat(response.body()).contains("the broker returned the message: NO_ROUTE");
            assertThat(server.publish("still fine", null).statusCode()).as("the channel is still usable").isEqualTo(202);
            Services.drain(broker, "keel.gateway");
        }
    }

    @ParameterizedTest
    @EnumSource(GatewayMode.class)
    void answers504WhenTheConnectionDropsBeforeTheConfirmAndRecovers(GatewayMode mode) throws Exception {
        String queue = Services.newQueue(broker, "drop");
        try (BrokerProxy proxy = new BrokerProxy();
             GatewayServer server = GatewayServer.start(Services.options().uri(proxy.uri()).mode(mode)
                     .confirmTimeout(Duration.ofSeconds(20)).build()).awaitBroker()) {
            assertThat(server.publish("before", queue).statusCode()).isEqualTo(202);
            proxy.freeze();
            CompletableFuture<HttpResponse<String>> inFlight = server.publishAsync("in flight", queue);
            Thread.sleep(300);
            proxy.cut();
            proxy.thaw();
            HttpResponse<String> response = inFlight.join();
            assertThat(response.statusCode()).as(response.body()).isEqualTo(504);
            assertThat(response.body()).contains("the broker connection failed").contains("may or may not be queued");
            // The in-flight answer can come before the connection reports the loss: wait for both edges.
            server.awaitState(BrokerConnection.State.DOWN, Duration.ofSeconds(5));
            server.awaitState(BrokerConnection.State.UP, Duration.ofSeconds(15));
            HttpResponse<String> after = server.publish("after", queue);
            assertThat(after.statusCode()).as(after.body()).isEqualTo(202);
            assertThat(Services.drain(broker, queue)).contains("before", "after");
        } finally {
            Services.deleteQueue(broker, queue);
        }
    }
}
