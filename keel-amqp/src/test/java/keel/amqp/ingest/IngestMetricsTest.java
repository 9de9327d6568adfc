package keel.amqp.ingest;

import com.rabbitmq.client.Channel;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import keel.amqp.AmqpOptions;
import keel.amqp.BrokerTest;
import keel.amqp.Services;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The pipeline's meters, with real events through the real broker into the real database. */
class IngestMetricsTest extends BrokerTest {
    @BeforeAll
    static void createTable() throws Exception {
        new EventStore(Services.options().build().database()).createTable();
    }

    @ParameterizedTest
    @EnumSource(IngestMode.class)
    void batchesRowsDuplicatesAndRedeliveriesAreCounted(IngestMode mode) throws Exception {
        String prefix = "test-" + UUID.randomUUID();
        AmqpOptions options = Services.options().ingestEnabled(true).ingestMode(mode)
                .ingestQueue("keel.test.ingest-metrics." + UUID.randomUUID().toString().substring(0, 8)).build();
        String queue = options.ingest().queue();
        EventLoad.publish(options, prefix, 0, 50);
        // A consumer takes those 50 without acking and goes away: the broker delivers them again, flagged redelivered.
        try (Channel taker = broker.createChannel()) {
            for (int i = 0; i < 50; i++) assertThat(taker.basicGet(queue, false)).as("message " + i).isNotNull();
        }
        EventLoad.publish(options, prefix, 0, 20); // 20 duplicates
        EventLoad.publish(options, prefix, 50, 100);
        MeterRegistry registry = new SimpleMeterRegistry();
        try (Ingest ingest = Ingest.start(options, new IngestMetrics(registry))) {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (ingest.stored() + ingest.duplicates() < 120) {
                if (System.nanoTime() > deadline) throw new AssertionError("not stored within 60 s: " + ingest.json());
                Thread.sleep(20);
            }
            assertThat(ingest.redelivered()).isEqualTo(50);
            assertThat(ingest.json()).contains("\"redelivered\":50");
        } finally {
            Services.deleteQueue(broker, queue);
        }

        assertThat(registry.get("keel.ingest.rows.stored").counter().count()).isEqualTo(100);
        assertThat(registry.get("keel.ingest.duplicates").counter().count()).isEqualTo(20);
        assertThat(registry.get("keel.ingest.redeliveries").counter().count()).isEqualTo(50);
        DistributionSummary batches = registry.get("keel.ingest.batch.size").summary();
        assertThat(batches.totalAmount()).isEqualTo(120);
        if (mode == IngestMode.SEQUENTIAL) {
            assertThat(batches.count()).isEqualTo(120);
            assertThat(batches.max()).isEqualTo(1);
        } else {
            assertThat(batches.count()).isBetween(1L, 120L);
            assertThat(batches.max()).isBetween(1.0, (double) options.ingest().batchSize());
        }
    }
}
