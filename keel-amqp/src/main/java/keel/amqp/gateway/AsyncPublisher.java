package keel.amqp.gateway;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import keel.amqp.AmqpOptions;
import keel.amqp.BrokerConnection;
import keel.core.log.Log;
import keel.http.Response;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * V3: the route hands a message to a bounded queue and returns a {@link CompletionStage} at once;
 * no thread waits for a confirm. Each lane is one publisher thread that owns one channel in confirm
 * mode: it takes a message, records it under its publish sequence number and writes it. The
 * channel's confirm listener (on the client's connection thread) completes the stage, and one
 * sweeper thread answers 504 for messages past their deadline, queued or unconfirmed.
 *
 * <p>Bounded: at most {@code maxOutstanding} messages are queued or unconfirmed; the next request
 * gets 503 at once.
 */
final class AsyncPublisher implements AutoCloseable {
    private static final Log LOG = Log.of(AsyncPublisher.class);

    private final BrokerConnection broker;
    private final AmqpOptions.Gateway options;
    private final Semaphore permits;
    private final GatewayObserver observer;
    /**
     * Lock-free on the loop's side: a loop must never wait for a lock that a preempted publisher
     * thread holds (an {@code ArrayBlockingQueue} shares one lock between both ends). Bounded by
     * {@link #permits}, which the loop takes before it offers.
     */
    private final LinkedTransferQueue<Pending> queue = new LinkedTransferQueue<>();
    private final List<Lane> lanes = new ArrayList<>();
    private final ScheduledExecutorService sweeper;
    private final long timeoutNanos;
    private volatile boolean running = true;

    AsyncPublisher(BrokerConnection broker, AmqpOptions.Gateway options, GatewayObserver observer) {
        this.broker = broker;
        this.options = options;
        this.observer = observer;
        this.permits = new Semaphore(options.maxOutstanding());
        this.timeoutNanos = options.confirmTimeout().toNanos();
        for (int i = 0; i < options.publisherThreads(); i++) lanes.add(new Lane(i));
        this.sweeper = Executors.newSingleThreadScheduledExecutor(
                task -> Thread.ofPlatform().name("keel-amqp-confirm-timeouts").daemon(true).unstarted(task));
        long period = Math.clamp(options.confirmTimeout().toMillis() / 20, 5, 100);
        sweeper.scheduleWithFixedDelay(this::expire, period, period, TimeUnit.MILLISECONDS);
        for (Lane lane : lanes) lane.thread.start();
    }

    /** Never blocks: admits the message or answers 503 at once. */
    CompletionStage<Response> publish(Message message) {
        Outcome unavailable = Outcome.unavailable(broker);
        if (unavailable != null) return refuse(unavailable);
        if (!permits.tryAcquire()) {
            return refuse(Outcome.refused(GatewayObserver.Refusal.MAX_OUTSTANDING,
                    options.maxOutstanding() + " messages already queued or awaiting a confirm"));
        }
        Pending pending = new Pending(message, System.nanoTime() + timeoutNanos, permits, observer);
        queue.offer(pending);
        return pending.response;
    }

    private CompletionStage<Response> refuse(Outcome refusal) {
        refusal.reportTo(observer);
        return CompletableFuture.completedFuture(refusal.toResponse());
    }

    int outstanding() {
        return options.maxOutstanding() - permits.availablePermits();
    }

    /**
     * Opens every lane's channel on the first connection, before the gateway reports itself up, so
     * no request waits for a channel to open (a stalled broker would hold it for the RPC timeout).
     */
    void openChannels(Connection connection) throws IOException {
        for (Lane lane : lanes) lane.open(connection);
    }

    private void expire() {
        long now = System.nanoTime();
        // The queue is FIFO with one timeout for all: expired messages are at its head.
        for (Pending head; (head = queue.peek()) != null && head.isExpired(now); ) {
            if (queue.remove(head)) head.finish(Outcome.timedOut(options.confirmTimeout().toMillis()));
        }
        for (Lane lane : lanes) lane.tracker.expire(now);
    }

    /** One publisher thread and the channel it alone publishes on. */
    private final class Lane {
        final Thread thread;
        final ConfirmTracker tracker = new ConfirmTracker(options.confirmTimeout().toMillis());
        private volatile Channel channel;

        Lane(int index) {
            this.thread = Thread.ofPlatform().name("keel-amqp-publisher-" + index).daemon(true).unstarted(this::run);
        }

        private void run() {
            while (running) {
                Pending pending;
                try {
                    pending = queue.poll(100, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    return;
                }
                if (pending == null) continue;
                if (pending.isExpired(System.nanoTime())) {
                    pending.finish(Outcome.timedOut(options.confirmTimeout().toMillis())); // never published
                    continue;
                }
                publish(pending);
            }
        }

        private void publish(Pending pending) {
            Message message = pending.message;
            long tag = -1;
            try {
                Channel open = channel();
                tag = open.getNextPublishSeqNo();
                tracker.track(tag, pending);
                open.basicPublish(options.exchange(), message.routingKey(), true, message.properties(), message.body());
            } catch (IOException | ShutdownSignalException e) {
                if (tag >= 0) tracker.untrack(tag);
                pending.finish(tag >= 0
                        ? Outcome.refused(GatewayObserver.Refusal.BROKER_DOWN, "the broker connection failed before the message was sent: " + e.getMessage())
                        : Outcome.refused(GatewayObserver.Refusal.NO_CHANNEL, "cannot open a channel: " + e.getMessage()));
            }
        }

        /** The lane's channel, reopened if a channel error closed it (recovery reopens it after a connection failure). */
        private Channel channel() throws IOException {
            Channel current = channel;
            if (current != null && (current.isOpen() || broker.state() != BrokerConnection.State.UP)) return current;
            return open(broker.connection().orElseThrow(() -> new IOException(broker.unavailable().orElse("not connected"))));
        }

        private Channel open(Connection connection) throws IOException {
            Channel opened = connection.createChannel();
            opened.confirmSelect();
            opened.addConfirmListener(tracker);
            opened.addReturnListener(returned -> tracker.returned(returned.getProperties().getMessageId(),
                    "the broker returned the message: " + returned.getReplyText()
                            + " (no queue bound to routing key '" + returned.getRoutingKey() + "')"));
            opened.addShutdownListener(cause -> {
                tracker.failAll("the broker connection failed before the confirm: " + cause.getMessage());
                if (!cause.isInitiatedByApplication()) LOG.debug("publisher_channel_closed", "cause", cause.getMessage());
            });
            channel = opened;
            return opened;
        }
    }

    @Override
    public void close() {
        running = false;
        sweeper.shutdownNow();
        for (Lane lane : lanes) {
            lane.thread.interrupt();
            lane.tracker.failAll("gateway is stopping");
        }
        for (Pending pending; (pending = queue.poll()) != null; ) {
            pending.finish(Outcome.refused(GatewayObserver.Refusal.STOPPING, "gateway is stopping"));
        }
    }
}
