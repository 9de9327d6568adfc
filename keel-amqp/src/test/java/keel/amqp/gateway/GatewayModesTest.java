package keel.amqp.gateway;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import keel.amqp.BrokerTest;
import keel.amqp.Services;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** Each of the four modes publishes for real: 202 only with the message on the broker's queue. */
class GatewayModesTest extends BrokerTest {
    @ParameterizedTest
    @EnumSource(GatewayMode.class)
    void answers202ForEveryConfirmedMessageAndEachIsOnTheQueue(GatewayMode mode) throws Exception {
        String queue = Services.newQueue(broker, mode.word());
        try (GatewayServer server = GatewayServer.start(Services.options().mode(mode).build()).awaitBroker()) {
            List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
            List<String> sent = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                sent.add(mode.word() + " message " + i);
                answers.add(server.publishAsync(sent.getLast(), queue));
            }
            for (CompletableFuture<HttpResponse<String>> answer : answers) {
                HttpResponse<String> response = answer.join();
                assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
                assertThat(response.body()).contains("\"status\":\"confirmed\"").contains("\"routingKey\":\"" + queue + "\"");
            }
            assertThat(Services.drain(broker, queue)).containsExactlyInAnyOrderElementsOf(sent);
        } finally {
            Services.deleteQueue(broker, queue);
        }
    }

    @ParameterizedTest
    @EnumSource(GatewayMode.class)
    void takesTheRoutingKeyFromTheQueryAndKeepsTheClientsMessageId(GatewayMode mode) throws Exception {
        String queue = Services.newQueue(broker, mode.word());
        try (GatewayServer server = GatewayServer.start(Services.options().mode(mode).build()).awaitBroker();
             Channel channel = broker.createChannel()) {
            HttpResponse<String> response = server.send(HttpRequest.newBuilder(server.uri(Gateway.PATH + "?key=" + queue))
                    .header("Message-Id", "event-42").header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"temperature\":21.5}")));
            assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
            assertThat(response.body()).contains("\"messageId\":\"event-42\"");
            GetResponse got = channel.basicGet(queue, true);
            assertThat(got).isNotNull();
            assertThat(new String(got.getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"temperature\":21.5}");
            assertThat(got.getProps().getMessageId()).isEqualTo("event-42");
            assertThat(got.getProps().getContentType()).isEqualTo("application/json");
            assertThat(got.getProps().getDeliveryMode()).as("persistent").isEqualTo(2);
        } finally {
            Services.deleteQueue(broker, queue);
        }
    }

    @ParameterizedTest
    @EnumSource(GatewayMode.class)
    void declaresTheDefaultRoutingKeysQueueAndPublishesThereWithoutAKey(GatewayMode mode) throws Exception {
        String queue = "keel.test.default." + mode.word() + "." + System.nanoTime();
        try (GatewayServer server = GatewayServer.start(Services.options().mode(mode).routingKey(queue).build()).awaitBroker()) {
            HttpResponse<String> response = server.publish("no key given", null);
            assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
            assertThat(Services.drain(broker, queue)).containsExactly("no key given");
        } finally {
            Services.deleteQueue(broker, queue);
        }
    }
}
