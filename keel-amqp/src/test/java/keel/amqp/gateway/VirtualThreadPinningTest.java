package keel.amqp.gateway;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import keel.amqp.BrokerTest;
import keel.amqp.Services;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * V4 on Java 25: the RabbitMQ client's {@code waitForConfirms} waits in {@code Object.wait} inside
 * a {@code synchronized} block, which pinned the carrier thread before JEP 491 (Java 24). JFR's
 * {@code jdk.VirtualThreadPinned} (threshold 0) sees no pinning during concurrent publishes, and a
 * control that still pins on Java 25 (blocking in a class initialiser) shows the recording would
 * have caught it.
 */
class VirtualThreadPinningTest extends BrokerTest {
    @TempDir
    Path dir;

    /** Initialised on a virtual thread, it blocks inside {@code <clinit>}: that still pins. */
    static final class SlowToInitialise {
        static {
            try {
                Thread.sleep(30);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        static void touch() {
        }
    }

    @Test
    void synchronousPublishesOnVirtualThreadsDoNotPinTheirCarriers() throws Exception {
        String queue = Services.newQueue(broker, "pinning");
        try (GatewayServer server = GatewayServer.start(Services.options().mode(GatewayMode.VIRTUAL_THREAD).build()).awaitBroker();
             Recording recording = new Recording()) {
            recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            recording.start();
            List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < 200; i++) answers.add(server.publishAsync("message " + i, queue));
            for (CompletableFuture<HttpResponse<String>> answer : answers) assertThat(answer.join().statusCode()).isEqualTo(202);
            List<RecordedEvent> duringPublishes = pinnedEvents(recording, "during-publishes.jfr");

            Thread.ofVirtual().start(SlowToInitialise::touch).join();
            List<RecordedEvent> withControl = pinnedEvents(recording, "with-control.jfr");

            assertThat(duringPublishes).as("pinned while publishing: %s", duringPublishes).isEmpty();
            assertThat(withControl).as("the recording sees pinning where Java 25 still pins").isNotEmpty();
            assertThat(Services.drain(broker, queue)).hasSize(200);
        } finally {
            Services.deleteQueue(broker, queue);
        }
    }

    private List<RecordedEvent> pinnedEvents(Recording recording, String file) throws Exception {
        Path dump = dir.resolve(file);
        recording.dump(dump);
        return RecordingFile.readAllEvents(dump).stream().filter(e -> e.getEventType().getName().equals("jdk.VirtualThreadPinned")).toList();
    }
}
