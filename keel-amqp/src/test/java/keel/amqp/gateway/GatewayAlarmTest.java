package keel.amqp.gateway;

import keel.amqp.BrokerConnection;
import keel.amqp.BrokerTest;
import keel.amqp.Services;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The broker's memory alarm on the real broker: it blocks every connection that publishes. Once the
 * broker says so, each mode answers 503 at once while it lasts, reports it on {@code /keel/health},
 * and accepts again after it, without a restart.
 */
class GatewayAlarmTest extends BrokerTest {
    @ParameterizedTest
    @EnumSource(GatewayMode.class)
    void answers503WhileAnAlarmBlocksPublishersAnd202AfterIt(GatewayMode mode) throws Exception {
        String queue = Services.newQueue(broker, "alarm");
        try (GatewayServer server = GatewayServer.start(Services.options().mode(mode).confirmTimeout(Duration.ofSeconds(1)).build())
                .awaitBroker()) {
            assertThat(server.publish("before", queue).statusCode()).isEqualTo(202);
            List<String> confirmedInTheAlarm = new ArrayList<>();
            try (AutoCloseable alarm = Services.memoryAlarm()) {
                // The broker blocks a connection when it publishes while the alarm is raised, and the alarm
                // takes a moment to rise: until the gateway hears it is blocked, each probe is confirmed
                // (it got in first) or goes out and waits unread (504 after the confirm timeout).
                int probes = 0;
                do {
                    assertThat(probes).as("probes sent without the broker blocking the gateway").isLessThan(10);
                    String body = "probe " + probes++;
                    HttpResponse<String> probe = server.publish(body, queue);
                    assertThat(probe.statusCode()).as(probe.body()).isIn(202, 504);
                    if (probe.statusCode() == 202) confirmedInTheAlarm.add(body);
                } while (!server.reachesState(BrokerConnection.State.BLOCKED, Duration.ofSeconds(1)));
                long start = System.nanoTime();
                HttpResponse<String> during = server.publish("during", queue);
                long tookMillis = (System.nanoTime() - start) / 1_000_000;
                assertThat(during.statusCode()).as(during.body()).isEqualTo(503);
                assertThat(during.body()).contains("is blocking publishers (resource alarm)");
                assertThat(during.headers().firstValue("Retry-After")).hasValue("1");
                assertThat(tookMillis).as("refused at once, not after a confirm timeout").isLessThan(2_000);
                HttpResponse<String> health = server.get("/keel/health");
                assertThat(health.statusCode()).isEqualTo(503);
                assertThat(health.body()).contains("\"state\":\"blocked\"").contains("the broker blocked publishing");
            }
            server.awaitState(BrokerConnection.State.UP, Duration.ofSeconds(10));
            HttpResponse<String> after = server.publish("after", queue);
            assertThat(after.statusCode()).as(after.body()).isEqualTo(202);
            assertThat(server.get("/keel/health").statusCode()).isEqualTo(200);
            // Nothing was published while the gateway answered 503; a 504 means "unknown", not "lost".
            var queued = Services.drain(broker, queue);
            assertThat(queued).contains("before", "after").doesNotContain("during");
            assertThat(queued).containsAll(confirmedInTheAlarm);
        } finally {
            Services.deleteQueue(broker, queue);
        }
    }
}
