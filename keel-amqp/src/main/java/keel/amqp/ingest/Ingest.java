package keel.amqp.ingest;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import keel.amqp.AmqpOptions;
import keel.amqp.BrokerConnection;
import keel.amqp.HealthCheck;
import keel.core.log.Log;
import keel.http.server.AdminRoutes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Consumes device events from a queue and stores each in PostgreSQL, acking a delivery only after
 * the row is committed. A crash therefore loses nothing (unacked deliveries come back) and a
 * redelivered event is skipped by its unique id, so the table ends with each event exactly once.
 *
 * <ul>
 * <li>{@code sequential}: prefetch 1; insert, commit, ack, next — on the client's consumer thread.</li>
 * <li>{@code pipelined}: prefetch {@code ingest.prefetch}; deliveries go to a buffer, and
 *     {@code ingest.writers} threads, each with its own database connection, insert up to
 *     {@code ingest.batch-size} of them per statement and ack each one after its commit. Rows may
 *     therefore be committed in a different order than the queue delivered them.</li>
 * </ul>
 *
 * Each stored batch and each redelivery goes to the pipeline's {@link IngestObserver}. A stop
 * cancels the consumer and waits (at most {@code ingest.stop-timeout}) until every delivery taken is
 * stored and acked, so that a planned stop, a rolling restart say, leaves nothing to redeliver.
 */
public final class Ingest implements HealthCheck, AutoCloseable {
    private static final Log LOG = Log.of(Ingest.class);

    private record DatabaseStatus(String state, Instant since, String error) {
    }

    private final AmqpOptions options;
    private final EventStore store;
    private final ArrayBlockingQueue<Event> buffer;
    private final List<Thread> writerThreads = new ArrayList<>();
    private final LongAdder stored = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder redelivered = new LongAdder();
    /** Deliveries received and not yet acked, requeued or rejected. */
    private final AtomicInteger taken = new AtomicInteger();
    private final CountDownLatch cancelled = new CountDownLatch(1);
    private final BrokerConnection broker;
    private final IngestObserver observer;
    private volatile DatabaseStatus database = new DatabaseStatus("connecting", Instant.now(), null);
    private volatile Channel channel;
    private volatile String consumerTag;
    private volatile boolean running = true;

    private Ingest(AmqpOptions options, IngestObserver observer) {
        this.options = options;
        this.observer = java.util.Objects.requireNonNull(observer, "observer");
        this.store = new EventStore(options.database());
        // Room for a full prefetch window twice: the old window may still be buffered when recovery delivers a new one.
        this.buffer = new ArrayBlockingQueue<>(2 * options.ingest().prefetch());
        this.broker = BrokerConnection.create("keel-ingest", options, this::startConsuming);
    }

    /** Connects (in the background) and consumes until {@link #close}. */
    public static Ingest start(AmqpOptions options) {
        return start(options, IngestObserver.NONE);
    }

    /** Like {@link #start(AmqpOptions)}, reporting to {@code observer}. */
    public static Ingest start(AmqpOptions options, IngestObserver observer) {
        return create(options, observer).connect();
    }

    /** Like {@link #start(AmqpOptions, IngestObserver)} without connecting yet (see {@link #connect}). */
    public static Ingest create(AmqpOptions options, IngestObserver observer) {
        return new Ingest(options, observer);
    }

    /** Connects to the broker and the database in the background, then consumes until {@link #close}; once per ingest. */
    public Ingest connect() {
        broker.connect();
        return this;
    }

    /** On the first connection: the table, the queue, then the consumer (recovery re-registers it). */
    private void startConsuming(Connection connection) {
        try {
            store.createTable();
            databaseUp();
        } catch (SQLException e) {
            databaseDown(e);
            throw new IllegalStateException("database " + options.database().url() + " unavailable: " + e.getMessage(), e);
        }
        try {
            Channel consuming = connection.createChannel();
            consuming.queueDeclare(options.ingest().queue(), true, false, false, options.queueArguments());
            channel = consuming;
            AmqpOptions.Ingest ingest = options.ingest();
            if (ingest.mode() == IngestMode.SEQUENTIAL) {
                Writer writer = new Writer();
                consuming.basicQos(1);
                consumerTag = consuming.basicConsume(ingest.queue(), false, new EventConsumer(consuming, writer::write));
            } else {
                consuming.basicQos(ingest.prefetch());
                consumerTag = consuming.basicConsume(ingest.queue(), false, new EventConsumer(consuming, this::enqueue));
                // Deliveries wait in the buffer until the writers start; they start once, after the consumer is in place.
                for (int i = 0; i < ingest.writers(); i++) {
                    writerThreads.add(Thread.ofPlatform().name("keel-ingest-writer-" + i).daemon(true).start(this::drainBuffer));
                }
            }
            LOG.info("ingest_started", "mode", ingest.mode().word(), "queue", ingest.queue());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private interface Sink {
        void take(List<Event> events) throws InterruptedException;
    }

    /** Hands each delivery to its sink; hears the end of a cancel after every delivery sent before it. */
    private final class EventConsumer extends DefaultConsumer {
        private final Sink sink;

        EventConsumer(Channel channel, Sink sink) {
            super(channel);
            this.sink = sink;
        }

        @Override
        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
            accept(new Delivery(envelope, properties, body), sink);
        }

        @Override
        public void handleCancelOk(String tag) {
            cancelled.countDown();
        }
    }

    private void accept(Delivery delivery, Sink sink) {
        taken.incrementAndGet();
        if (delivery.getEnvelope().isRedeliver()) {
            redelivered.increment();
            tell(IngestObserver::onRedelivered);
        }
        Event event = Event.of(delivery);
        try {
            if (event == null) {
                rejected.increment();
                LOG.warn("ingest_event_without_id", "delivery_tag", delivery.getEnvelope().getDeliveryTag());
                try {
                    channel.basicReject(delivery.getEnvelope().getDeliveryTag(), false);
                } finally {
                    taken.decrementAndGet();
                }
                return;
            }
            sink.take(List.of(event));
        } catch (IOException | ShutdownSignalException e) {
            LOG.debug("ingest_reject_failed", "cause", e.getMessage()); // the broker redelivers it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void enqueue(List<Event> events) throws InterruptedException {
        for (Event event : events) {
            try {
                buffer.put(event);
            } catch (InterruptedException e) {
                taken.decrementAndGet(); // not buffered: the broker redelivers it
                throw e;
            }
        }
    }

    /** A pipelined writer: a batch of whatever is buffered, up to the batch size, per statement. */
    private void drainBuffer() {
        Writer writer = new Writer();
        int batchSize = options.ingest().batchSize();
        try {
            while (running) {
                Event first = buffer.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) continue;
                List<Event> batch = new ArrayList<>(batchSize);
                batch.add(first);
                buffer.drainTo(batch, batchSize - 1);
                writer.write(batch);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            writer.closeDatabase();
        }
    }

    /** Inserts, commits, then acks; owns one database connection (reopened after a failure). */
    private final class Writer {
        private java.sql.Connection db;

        void write(List<Event> events) throws InterruptedException {
            int added;
            try {
                if (db == null) db = store.open();
                added = store.insert(db, events);
                databaseUp();
            } catch (SQLException e) {
                databaseDown(e);
                closeDatabase();
                requeue(events);
                taken.addAndGet(-events.size());
                Thread.sleep(options.recoveryInterval());
                return;
            }
            try {
                try {
                    for (Event event : events) channel.basicAck(event.deliveryTag(), false);
                } catch (IOException | ShutdownSignalException e) {
                    // Committed but not acked: the broker redelivers these, and the unique id skips them.
                    LOG.debug("ingest_ack_failed", "cause", e.getMessage());
                }
                // Counted once committed and acked, so a caller that sees them counted may stop the consumer
                // (and finds the observer told already).
                int storedRows = added;
                tell(o -> o.onBatchStored(events.size(), storedRows));
                stored.add(added);
                duplicates.add(events.size() - added);
            } finally {
                // Given back last: a stop waits for nothing taken, and then finds every batch counted.
                taken.addAndGet(-events.size());
            }
        }

        private void requeue(List<Event> events) {
            try {
                for (Event event : events) channel.basicNack(event.deliveryTag(), false, true);
            } catch (IOException | ShutdownSignalException e) {
                LOG.debug("ingest_nack_failed", "cause", e.getMessage()); // the broker redelivers them anyway
            }
        }

        void closeDatabase() {
            if (db == null) return;
            try {
                db.close();
            } catch (SQLException e) {
                LOG.debug("database_close_failed", "cause", e.getMessage());
            }
            db = null;
        }
    }

    /** Tells the observer; a failing one never stops the pipeline. */
    private void tell(java.util.function.Consumer<IngestObserver> event) {
        try {
            event.accept(observer);
        } catch (RuntimeException e) {
            LOG.warn("observer_failed", e, "event", "ingest");
        }
    }

    private void databaseUp() {
        if (!"up".equals(database.state())) database = new DatabaseStatus("up", Instant.now(), null);
    }

    private void databaseDown(SQLException e) {
        if (!"down".equals(database.state())) LOG.warn("database_unavailable", "url", options.database().url(), "cause", e.getMessage());
        database = new DatabaseStatus("down", Instant.now(), e.getMessage());
    }

    /** Events stored so far (new rows). */
    public long stored() {
        return stored.sum();
    }

    /** Redelivered events skipped because their row already existed. */
    public long duplicates() {
        return duplicates.sum();
    }

    /** Deliveries the broker flagged as redelivered (sent before and not acked). */
    public long redelivered() {
        return redelivered.sum();
    }

    public BrokerConnection broker() {
        return broker;
    }

    @Override
    public String name() {
        return "ingest";
    }

    @Override
    public boolean isUp() {
        return broker.isUp() && "up".equals(database.state());
    }

    @Override
    public String json() {
        DatabaseStatus db = database;
        return "{\"state\":\"" + (isUp() ? "up" : "down") + "\",\"mode\":\"" + options.ingest().mode().word()
                + "\",\"queue\":" + AdminRoutes.quote(options.ingest().queue())
                + ",\"stored\":" + stored.sum() + ",\"duplicates\":" + duplicates.sum() + ",\"rejected\":" + rejected.sum()
                + ",\"redelivered\":" + redelivered.sum()
                + ",\"broker\":" + broker.json()
                + ",\"database\":{\"state\":\"" + db.state() + "\",\"url\":" + AdminRoutes.quote(options.database().url())
                + ",\"since\":\"" + db.since() + "\"" + (db.error() == null ? "" : ",\"error\":" + AdminRoutes.quote(db.error())) + "}}";
    }

    @Override
    public void close() {
        drain();
        running = false;
        for (Thread thread : writerThreads) thread.interrupt();
        broker.close();
        // The process's totals, which its metrics lose with it: a bench sums them over restarts.
        LOG.info("ingest_stopped", "stored", stored.sum(), "duplicates", duplicates.sum(), "redelivered", redelivered.sum(),
                "rejected", rejected.sum());
    }

    /**
     * Cancels the consumer, then waits until every delivery taken is acked (stored), requeued or
     * rejected, for at most {@code ingest.stop-timeout}; whatever is still unacked after that the
     * broker redelivers once the connection closes.
     */
    private void drain() {
        Channel consuming = channel;
        String tag = consumerTag;
        if (consuming == null || tag == null || !consuming.isOpen()) return;
        long deadline = System.nanoTime() + options.ingest().stopTimeout().toNanos();
        try {
            consuming.basicCancel(tag);
            // The cancel's end is dispatched after the deliveries that came before it: none comes after.
            if (cancelled.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
                while (taken.get() > 0 && System.nanoTime() < deadline) Thread.sleep(10);
            }
        } catch (IOException | ShutdownSignalException e) {
            LOG.debug("ingest_cancel_failed", "cause", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (taken.get() > 0) LOG.warn("ingest_stop_timeout", "unacked", taken.get(), "timeout", options.ingest().stopTimeout());
    }
}
