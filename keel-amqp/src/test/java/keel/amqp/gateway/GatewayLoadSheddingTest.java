package keel.amqp.gateway;

import keel.amqp.BrokerProxy;
import keel.amqp.BrokerTest;
import keel.amqp.Services;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With the broker stalled, each remedy admits up to its bound and refuses the next request at once
 * with 503 + Retry-After; the admitted ones are confirmed once the broker moves again. (V1 has no
 * bound: it blocks its loop, which is the failure it exists to show.)
 */
class GatewayLoadSheddingTest extends BrokerTest {
    @ParameterizedTest
    @EnumSource(value = GatewayMode.class, names = {"WORKER_POOL", "ASYNC", "VIRTUAL_THREAD"})
    void refusesPastItsBoundWith503AndConfirmsWhatItAdmitted(GatewayMode mode) throws Exception {
        String queue = Services.newQueue(broker, "shed");
        try (BrokerProxy proxy = new BrokerProxy();
             GatewayServer server = GatewayServer.start(
                     Services.options().uri(proxy.uri()).mode(mode).maxOutstanding(2).confirmTimeout(Duration.ofSeconds(20)).build(),
                     options -> options.workerThreads(1).workerQueue(1).virtualThreadLimit(2)).awaitBroker()) {
            assertThat(server.publish("warm", queue).statusCode()).isEqualTo(202);
            proxy.freeze();
            List<CompletableFuture<HttpResponse<String>>> admitted = List.of(server.publishAsync("one", queue), server.publishAsync("two", queue));
            awaitCount(admitted(mode, server), 2);

            long start = System.nanoTime();
            HttpResponse<String> refused = server.publish("three", queue);
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
            assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
            assertThat((System.nanoTime() - start) / 1_000_000).as("refused at once").isLessThan(1_000);

            proxy.thaw();
            for (CompletableFuture<HttpResponse<String>> answer : admitted) {
                assertThat(answer.join().statusCode()).as(answer.join().body()).isEqualTo(202);
            }
            assertThat(Services.drain(broker, queue)).containsExactlyInAnyOrder("warm", "one", "two");
        } finally {
            Services.deleteQueue(broker, queue);
        }
    }

    /** How many requests the mode's bound has admitted. */
    private static IntSupplier admitted(GatewayMode mode, GatewayServer server) {
        return switch (mode) {
            case WORKER_POOL -> () -> server.server.workerActive() + server.server.workerQueued();
            case VIRTUAL_THREAD -> server.server::virtualThreadsInFlight;
            case ASYNC -> server.gateway::outstanding;
            case EVENT_LOOP -> throw new IllegalArgumentException("no bound on the event loop");
        };
    }

    private static void awaitCount(IntSupplier count, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (count.getAsInt() != expected) {
            if (System.nanoTime() > deadline) throw new AssertionError("admitted " + count.getAsInt() + ", expected " + expected);
            Thread.sleep(10);
        }
    }
}
