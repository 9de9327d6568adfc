package keel.amqp.gateway;

import com.rabbitmq.client.ShutdownSignalException;
import keel.amqp.AmqpOptions;
import keel.amqp.BrokerConnection;

import java.io.IOException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Publish, then wait for the broker's confirm, on the calling thread: the code of V1, V2 and V4,
 * which differ only in the thread that calls {@link #publish}. Every path ends in an
 * {@link Outcome}; a message the broker did not confirm is never reported as accepted.
 */
final class SyncPublisher implements AutoCloseable {
    private final BrokerConnection broker;
    private final AmqpOptions.Gateway options;
    private final ChannelPool channels;
    private final long timeoutNanos;
    private final AtomicInteger inFlight = new AtomicInteger();

    SyncPublisher(BrokerConnection broker, AmqpOptions.Gateway options) {
        this.broker = broker;
        this.options = options;
        this.channels = new ChannelPool(broker, options.channels());
        this.timeoutNanos = options.confirmTimeout().toNanos();
    }

    /** Blocks for up to the confirm timeout. */
    Outcome publish(Message message) {
        Outcome unavailable = Outcome.unavailable(broker);
        if (unavailable != null) return unavailable;
        inFlight.incrementAndGet();
        try {
            return publishOnAChannel(message);
        } finally {
            inFlight.decrementAndGet();
        }
    }

    /** Messages being published or waiting for their confirm now (or for a channel to publish on). */
    int inFlight() {
        return inFlight.get();
    }

    private Outcome publishOnAChannel(Message message) {
        long deadline = System.nanoTime() + timeoutNanos;
        ChannelPool.Lent lent;
        try {
            lent = channels.acquire(timeoutNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Outcome.refused(GatewayObserver.Refusal.STOPPING, "gateway is stopping");
        } catch (IOException | RuntimeException e) {
            return Outcome.refused(GatewayObserver.Refusal.NO_CHANNEL, "cannot open a channel: " + describe(e));
        }
        if (lent == null) {
            return Outcome.refused(GatewayObserver.Refusal.CHANNELS_BUSY, "all " + options.channels()
                    + " publisher channels stayed busy for " + options.confirmTimeout().toMillis() + " ms");
        }
        return publishOn(lent, message, deadline);
    }

    private Outcome publishOn(ChannelPool.Lent lent, Message message, long deadline) {
        try {
            lent.channel.basicPublish(options.exchange(), message.routingKey(), true, message.properties(), message.body());
        } catch (IOException | ShutdownSignalException e) {
            channels.discard(lent);
            return Outcome.refused(GatewayObserver.Refusal.BROKER_DOWN, "the broker connection failed before the message was sent: " + describe(e));
        }
        try {
            // waitForConfirms(0) would wait for ever: always pass at least 1 ms.
            long waitMillis = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
            boolean acked = lent.channel.waitForConfirms(waitMillis);
            String returned = lent.returned; // read before the channel goes to its next user
            channels.release(lent);
            if (!acked) return Outcome.nacked();
            if (returned != null) return Outcome.returned(returned);
            return Outcome.confirmed(message);
        } catch (TimeoutException e) {
            channels.discard(lent);
            return Outcome.timedOut(options.confirmTimeout().toMillis());
        } catch (ShutdownSignalException e) {
            channels.discard(lent);
            return Outcome.failed("the broker connection failed before the confirm: " + describe(e));
        } catch (InterruptedException e) {
            channels.discard(lent);
            Thread.currentThread().interrupt();
            return Outcome.failed("interrupted before the confirm (gateway stopping)");
        }
    }

    private static String describe(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    @Override
    public void close() {
        channels.close();
    }
}
