package keel.amqp.gateway;

import com.rabbitmq.client.Channel;
import keel.amqp.BrokerConnection;
import keel.core.log.Log;

import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Channels in confirm mode for the synchronous modes, each lent to one publisher at a time: a
 * channel's {@code waitForConfirms} waits for every message on it, so sharing one would make a
 * publisher wait for the others'. At most {@code size} exist; they are opened on first need.
 */
final class ChannelPool {
    private static final Log LOG = Log.of(ChannelPool.class);

    /** A channel with the flag its return listener sets when the broker hands back the message as unroutable. */
    static final class Lent {
        final Channel channel;
        volatile String returned;

        Lent(Channel channel) {
            this.channel = channel;
        }
    }

    private final BrokerConnection broker;
    private final Semaphore permits;
    private final ArrayBlockingQueue<Lent> idle;

    ChannelPool(BrokerConnection broker, int size) {
        this.broker = broker;
        this.permits = new Semaphore(size);
        this.idle = new ArrayBlockingQueue<>(size);
    }

    /** A channel of this caller's own, or null when none became free within the wait. */
    Lent acquire(long waitNanos) throws IOException, InterruptedException {
        if (!permits.tryAcquire(waitNanos, TimeUnit.NANOSECONDS)) return null;
        Lent lent;
        while ((lent = idle.poll()) != null && !lent.channel.isOpen()) {
            // closed by a channel error (recovery only reopens channels after a connection failure)
        }
        if (lent != null) {
            lent.returned = null;
            return lent;
        }
        try {
            return open();
        } catch (IOException | RuntimeException e) {
            permits.release();
            throw e;
        }
    }

    private Lent open() throws IOException {
        Channel channel = broker.openChannel();
        Lent lent = new Lent(channel);
        channel.confirmSelect();
        channel.addReturnListener(returned -> lent.returned = "the broker returned the message: " + returned.getReplyText()
                + " (no queue bound to routing key '" + returned.getRoutingKey() + "')");
        return lent;
    }

    /** Gives back a channel whose messages are all confirmed. */
    void release(Lent lent) {
        if (lent.channel.isOpen()) idle.offer(lent);
        permits.release();
    }

    /**
     * Drops a channel that may still carry an unconfirmed message (a late nack would otherwise be
     * charged to its next user). Closing waits for the broker, so it happens off the caller's thread.
     */
    void discard(Lent lent) {
        permits.release();
        Thread.ofVirtual().name("keel-amqp-channel-close").start(() -> {
            try {
                lent.channel.abort();
            } catch (IOException | RuntimeException e) {
                LOG.debug("channel_abort_failed", "cause", e);
            }
        });
    }

    void close() {
        Lent lent;
        while ((lent = idle.poll()) != null) {
            try {
                lent.channel.abort();
            } catch (IOException | RuntimeException e) {
                LOG.debug("channel_abort_failed", "cause", e);
            }
        }
    }
}
