package keel.amqp.ingest;

import com.rabbitmq.client.Channel;
import keel.amqp.AmqpOptions;
import keel.amqp.BrokerConnection;
import keel.amqp.BrokerProxy;
import keel.amqp.BrokerTest;
import keel.amqp.Services;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.UUID;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Both ingest modes against the real broker and database: each event ends up exactly once in the table. */
class IngestTest extends BrokerTest {
    private static java.sql.Connection database;

    @BeforeAll
    static void connectToDatabase() throws Exception {
        database = Services.database();
        new EventStore(Services.options().build().database()).createTable();
    }

    @AfterAll
    static void closeDatabaseConnection() throws Exception {
        database.close();
    }

    @ParameterizedTest
    @EnumSource(IngestMode.class)
    void storesEachEventOnceWhenItIsDeliveredTwice(IngestMode mode) throws Exception {
        String prefix = "test-" + UUID.randomUUID();
        AmqpOptions options = options(mode).build();
        EventLoad.publish(options, prefix, 0, 300);
        EventLoad.publish(options, prefix, 0, 300); // the same 300 events again: duplicates
        EventLoad.publish(options, prefix, 300, 500);
        try (Ingest ingest = Ingest.start(options)) {
            await(() -> ingest.stored() + ingest.duplicates() == 800, Duration.ofSeconds(60), ingest);
            assertThat(ingest.stored()).isEqualTo(500);
            assertThat(ingest.duplicates()).isEqualTo(300);
            assertThat(ingest.json()).contains("\"state\":\"up\"").contains("\"stored\":500");
        }
        assertThat(rows(prefix)).isEqualTo(500);
        assertThat(distinctRows(prefix)).isEqualTo(500);
        assertThat(messagesLeft(options)).as("every delivery acked").isZero();
        deleteQueue(options);
    }

    @ParameterizedTest
    @EnumSource(IngestMode.class)
    void keepsStoringAndReportsUpWhileAnAlarmBlocksPublishers(IngestMode mode) throws Exception {
        String prefix = "test-" + UUID.randomUUID();
        AmqpOptions options = options(mode).build();
        EventLoad.publish(options, prefix, 0, 300); // before the alarm: it would block this publisher
        // The alarm blocks connections that publish; the consumer only consumes and acks.
        try (AutoCloseable alarm = Services.memoryAlarm(); Ingest ingest = Ingest.start(options)) {
            await(() -> ingest.stored() == 300, Duration.ofSeconds(60), ingest);
            assertThat(ingest.isUp()).as(ingest.json()).isTrue();
            assertThat(ingest.json()).startsWith("{\"state\":\"up\"").contains("\"broker\":{\"state\":\"up\"");
        }
        assertThat(distinctRows(prefix)).isEqualTo(300);
        assertThat(messagesLeft(options)).as("every delivery acked during the alarm").isZero();
        deleteQueue(options);
    }

    @ParameterizedTest
    @EnumSource(IngestMode.class)
    void losesAndDuplicatesNothingWhenTheConsumerConnectionDropsMidway(IngestMode mode) throws Exception {
        String prefix = "test-" + UUID.randomUUID();
        int events = mode == IngestMode.SEQUENTIAL ? 600 : 5_000;
        try (BrokerProxy proxy = new BrokerProxy()) {
            AmqpOptions options = options(mode).uri(proxy.uri()).build();
            EventLoad.publish(options, prefix, 0, events);
            try (Ingest ingest = Ingest.start(options)) {
                await(() -> ingest.stored() >= events / 4, Duration.ofSeconds(60), ingest);
                long storedAtCut = rows(prefix);
                proxy.cut(); // unacked deliveries (some already committed) go back to the queue
                assertThat(storedAtCut).as("cut midway").isLessThan(events);
                await(() -> ingest.broker().state() != BrokerConnection.State.UP, Duration.ofSeconds(5), ingest);
                await(() -> rows(prefix) == events && messagesLeft(options) == 0, Duration.ofSeconds(90), ingest);
                assertThat(ingest.stored()).isEqualTo(events);
            }
            assertThat(rows(prefix)).isEqualTo(events);
            assertThat(distinctRows(prefix)).isEqualTo(events);
            assertThat(messagesLeft(options)).as("every delivery acked").isZero();
            deleteQueue(options);
        }
    }

    @ParameterizedTest
    @EnumSource(IngestMode.class)
    void aStopMidwayStoresAndAcksWhatItTookSoNothingIsRedelivered(IngestMode mode) throws Exception {
        String prefix = "test-" + UUID.randomUUID();
        int events = mode == IngestMode.SEQUENTIAL ? 600 : 5_000;
        AmqpOptions options = options(mode).build();
        EventLoad.publish(options, prefix, 0, events);
        Ingest first = Ingest.start(options);
        try {
            await(() -> first.stored() >= events / 4, Duration.ofSeconds(60), first);
        } finally {
            first.close(); // with a prefetch window of deliveries taken
        }
        assertThat(first.stored()).as("stopped midway").isLessThan(events);
        try (Ingest second = Ingest.start(options)) {
            await(() -> rows(prefix) == events && messagesLeft(options) == 0, Duration.ofSeconds(90), second);
            assertThat(second.redelivered()).as("deliveries the first left unacked").isZero();
            assertThat(second.duplicates()).isZero();
            assertThat(first.stored() + second.stored()).isEqualTo(events);
        }
        deleteQueue(options);
    }

    private static AmqpOptions.Builder options(IngestMode mode) {
        return Services.options().ingestEnabled(true).ingestMode(mode)
                .ingestQueue("keel.test.ingest." + UUID.randomUUID().toString().substring(0, 8));
    }

    private static long rows(String prefix) {
        return IngestChecks.rows(database, prefix);
    }

    private static long distinctRows(String prefix) {
        return IngestChecks.distinctRows(database, prefix);
    }

    private static long messagesLeft(AmqpOptions options) {
        try (Channel channel = broker.createChannel()) {
            return channel.queueDeclarePassive(options.ingest().queue()).getMessageCount();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void deleteQueue(AmqpOptions options) throws Exception {
        Services.deleteQueue(broker, options.ingest().queue());
    }

    private static void await(BooleanSupplier condition, Duration timeout, Ingest ingest) throws InterruptedException {
        IngestChecks.await(condition, timeout, ingest);
    }
}
