package keel.amqp.gateway;

import com.rabbitmq.client.Connection;
import keel.amqp.BrokerConnection;
import keel.amqp.Services;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The broker itself force-closes every connection ({@code rabbitmqctl close_all_connections}, as in
 * a broker restart or an operator's kill): the gateway answers 503 while it reconnects, reports it
 * on {@code /keel/health}, and is healthy again without a restart, every confirmed message queued.
 */
class GatewayRecoveryTest {

    @ParameterizedTest
    @EnumSource(GatewayMode.class)
    void recoversAfterTheBrokerClosesItsConnections(GatewayMode mode) throws Exception {
        String queue;
        try (Connection setup = Services.broker()) {
            queue = Services.newQueue(setup, "recovery");
        }
        List<String> confirmed = new ArrayList<>();
        try (GatewayServer server = GatewayServer.start(Services.options().mode(mode)
                .recoveryInterval(Duration.ofSeconds(2)).build()).awaitBroker()) {
            publish(server, queue, "before", confirmed);
            assertThat(confirmed).containsExactly("before");

            Services.rabbitmqctl("close_all_connections", "keel test: broker-side close");
            server.awaitState(BrokerConnection.State.DOWN, Duration.ofSeconds(5));
            HttpResponse<String> during = server.publish("during", queue);
            assertThat(during.statusCode()).as(during.body()).isEqualTo(503);
            assertThat(during.body()).contains("unreachable").contains("CONNECTION_FORCED");
            HttpResponse<String> health = server.get("/keel/health");
            assertThat(health.statusCode()).isEqualTo(503);
            assertThat(health.body()).contains("\"state\":\"down\"");

            server.awaitState(BrokerConnection.State.UP, Duration.ofSeconds(20));
            for (int i = 0; i < 10; i++) publish(server, queue, "after " + i, confirmed);
            assertThat(confirmed).hasSize(11);
            HttpResponse<String> healthy = server.get("/keel/health");
            assertThat(healthy.statusCode()).isEqualTo(200);
            assertThat(healthy.body()).contains("\"status\":\"up\"").contains("\"state\":\"up\"");
        }
        try (Connection check = Services.broker()) {
            assertThat(Services.drain(check, queue)).containsExactlyElementsOf(confirmed);
            Services.deleteQueue(check, queue);
        }
    }

    private static void publish(GatewayServer server, String queue, String body, List<String> confirmed) {
        HttpResponse<String> response = server.publish(body, queue);
        assertThat(response.statusCode()).as(body + ": " + response.body()).isEqualTo(202);
        confirmed.add(body);
    }
}
