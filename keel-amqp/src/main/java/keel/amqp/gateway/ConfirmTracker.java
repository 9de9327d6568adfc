package keel.amqp.gateway;

import com.rabbitmq.client.ConfirmListener;

import java.util.Map;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The unconfirmed messages of one channel, keyed by publish sequence number (the delivery tag of
 * their confirm). A confirm with {@code multiple=true} settles every tag up to its own. Tags grow in
 * publish order and every message gets the same timeout, so the oldest deadline is always at the
 * head: expiring is a look at the first entries, not a scan.
 *
 * <p>Thread contract: {@link #track} runs on the lane's publisher thread; confirms and returns on
 * the client's connection thread; {@link #expire} on the timeout sweeper.
 */
final class ConfirmTracker implements ConfirmListener {
    private final ConcurrentSkipListMap<Long, Pending> unconfirmed = new ConcurrentSkipListMap<>();
    private final long timeoutMillis;

    ConfirmTracker(long timeoutMillis) {
        this.timeoutMillis = timeoutMillis;
    }

    void track(long tag, Pending pending) {
        unconfirmed.put(tag, pending);
    }

    /** The publish of {@code tag} failed before it reached the broker. */
    Pending untrack(long tag) {
        return unconfirmed.remove(tag);
    }

    @Override
    public void handleAck(long tag, boolean multiple) {
        settle(tag, multiple, null);
    }

    @Override
    public void handleNack(long tag, boolean multiple) {
        settle(tag, multiple, Outcome.nacked());
    }

    private void settle(long tag, boolean multiple, Outcome failure) {
        if (multiple) {
            ConcurrentNavigableMap<Long, Pending> settled = unconfirmed.headMap(tag, true);
            for (Map.Entry<Long, Pending> entry; (entry = settled.pollFirstEntry()) != null; ) {
                settleOne(entry.getValue(), failure);
            }
        } else {
            Pending pending = unconfirmed.remove(tag);
            if (pending != null) settleOne(pending, failure);
        }
    }

    private static void settleOne(Pending pending, Outcome failure) {
        if (failure == null) pending.confirmed();
        else pending.finish(failure);
    }

    /** The broker handed back an unroutable message; its confirm follows. Rare, so a scan is fine. */
    void returned(String messageId, String reason) {
        for (Pending pending : unconfirmed.values()) {
            if (pending.message.messageId().equals(messageId)) {
                pending.returned = reason;
                return;
            }
        }
    }

    /** Answers 504 for every message whose deadline passed. */
    void expire(long nowNanos) {
        for (Map.Entry<Long, Pending> head; (head = unconfirmed.firstEntry()) != null && head.getValue().isExpired(nowNanos); ) {
            if (unconfirmed.remove(head.getKey(), head.getValue())) head.getValue().finish(Outcome.timedOut(timeoutMillis));
        }
    }

    /** The channel closed: no confirm will come for what it carried (a recovered channel numbers from 1 again). */
    void failAll(String reason) {
        for (Map.Entry<Long, Pending> entry; (entry = unconfirmed.pollFirstEntry()) != null; ) {
            entry.getValue().finish(Outcome.failed(reason));
        }
    }

    int size() {
        return unconfirmed.size();
    }
}
