package keel.amqp.ingest;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import keel.amqp.AmqpOptions;
import keel.amqp.Cluster;
import keel.amqp.QueueType;
import keel.amqp.Services;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Both ingest modes on a quorum queue of the three-node cluster: a node is killed (SIGKILL)
 * mid-stream, either the one the consumer is connected to, or the queue's leader while the consumer
 * is on another node (its addresses leave the leader out), then the consumer itself dies mid-stream while events are
 * still being published (its connection aborted, nothing more acked) and a new one takes over. The table ends with each event exactly
 * once and the queue empty.
 */
class IngestClusterTest {
    private static java.sql.Connection database;

    @BeforeAll
    static void clusterAndDatabase() throws Exception {
        Cluster.up();
        database = Services.database();
        new EventStore(Services.options().build().database()).createTable();
    }

    @AfterAll
    static void closeDatabaseConnection() throws Exception {
        database.close();
    }

    enum Victim { CONSUMERS_NODE, QUEUE_LEADER }

    @ParameterizedTest
    @CsvSource({"SEQUENTIAL, CONSUMERS_NODE", "PIPELINED, CONSUMERS_NODE", "SEQUENTIAL, QUEUE_LEADER", "PIPELINED, QUEUE_LEADER"})
    void storesEachEventOnceAcrossANodeLossAndAConsumerKill(IngestMode mode, Victim victim) throws Exception {
        String prefix = "cluster-" + UUID.randomUUID();
        int half = mode == IngestMode.SEQUENTIAL ? 1_500 : 10_000;
        int leader = 1;
        String queue = Cluster.newQuorumQueue(leader, "ingest-cluster");
        assertThat(Cluster.leader(queue, leader)).as("the queue's leader").isEqualTo(leader);
        // One writer of small batches: slow enough that the kills below land with the queue not drained.
        AmqpOptions options = (victim == Victim.QUEUE_LEADER ? Cluster.options(2, 3) : Cluster.options())
                .ingestEnabled(true).ingestMode(mode).writers(1).batchSize(10).prefetch(50).ingestQueue(queue).build();
        assertThat(options.resolvedQueueType()).isEqualTo(QueueType.QUORUM);
        int killed = 0;
        try {
            EventLoad.publish(options, prefix, 0, half);
            Ingest first = Ingest.start(options);
            CompletableFuture<Void> secondHalf;
            try {
                await(() -> rows(prefix) >= half / 10, first);
                int consumers = Cluster.nodeOf(first.broker().node().orElseThrow());
                int lost = victim == Victim.QUEUE_LEADER ? leader : consumers;
                // Inserts wait while the node dies, so it dies with deliveries taken and not stored, however
                // fast the consumer is compared with a kill.
                try (AutoCloseable held = holdInserts()) {
                    Cluster.kill(lost);
                    killed = lost;
                    assertThat(rows(prefix)).as("node killed midway").isLessThan(half);
                }
                if (lost == consumers) {
                    await(() -> first.broker().node().map(Cluster::nodeOf).filter(node -> node != lost).isPresent(), first);
                }
                await(() -> rows(prefix) == half, first);

                // The second half is consumed while it is published, so the consumer dies with the queue not drained.
                secondHalf = CompletableFuture.runAsync(() -> publish(options, prefix, half, 2 * half));
                await(() -> rows(prefix) >= half + half / 10, first);
            } finally {
                killConsumer(first);
            }
            secondHalf.join();
            assertThat(rows(prefix)).as("consumer killed midway").isLessThan(2L * half);
            try (Ingest second = Ingest.start(options)) {
                await(() -> rows(prefix) == 2L * half && messagesLeft(options) == 0, second);
            }
            assertThat(rows(prefix)).isEqualTo(2L * half);
            assertThat(IngestChecks.distinctRows(database, prefix)).isEqualTo(2L * half);
            assertThat(messagesLeft(options)).as("every delivery acked").isZero();
        } finally {
            if (killed != 0) Cluster.up();
            try (Connection check = Cluster.connect(1); Channel channel = check.createChannel()) {
                channel.queueDelete(queue);
            }
        }
    }

    /** The consumer dies: its connection goes at once, with deliveries taken, some stored, none acked after. */
    private static void killConsumer(Ingest ingest) {
        ingest.broker().connection().ifPresent(connection -> connection.abort(1_000));
        ingest.close();
    }

    private static void publish(AmqpOptions options, String prefix, int from, int to) {
        try {
            EventLoad.publish(options, prefix, from, to);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Holds every insert into the events table (a SHARE lock, which reads pass) until closed. */
    private static AutoCloseable holdInserts() throws SQLException {
        java.sql.Connection lock = Services.database();
        lock.setAutoCommit(false);
        try (Statement statement = lock.createStatement()) {
            statement.execute("LOCK TABLE " + EventStore.TABLE + " IN SHARE MODE");
        }
        return () -> {
            try (lock) {
                lock.rollback();
            }
        };
    }

    private static long rows(String prefix) {
        return IngestChecks.rows(database, prefix);
    }

    /** Ready messages, asked of a node that is up (node 1 may be the one killed). */
    private static long messagesLeft(AmqpOptions options) {
        for (int node = 1; node <= Cluster.NODES; node++) {
            try (Connection connection = Cluster.connect(node); Channel channel = connection.createChannel()) {
                return channel.queueDeclarePassive(options.ingest().queue()).getMessageCount();
            } catch (Exception e) {
                // that node is down: ask the next
            }
        }
        throw new IllegalStateException("no cluster node answers");
    }

    private static void await(BooleanSupplier condition, Ingest ingest) throws InterruptedException {
        IngestChecks.await(condition, Duration.ofSeconds(90), ingest);
    }
}
