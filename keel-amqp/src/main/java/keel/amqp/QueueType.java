package keel.amqp;

import java.util.Locale;
import java.util.Map;

/**
 * The type of the queues the gateway and the ingest pipeline declare ({@code amqp.queue-type}). A
 * quorum queue is replicated on a majority of a cluster's nodes and survives the loss of a minority
 * of them; a classic queue lives on one node.
 */
public enum QueueType {
    /** Quorum when {@code amqp.addresses} names more than one node, classic otherwise. */
    AUTO,
    /** A classic durable queue. */
    CLASSIC,
    /** A quorum queue ({@code x-queue-type: quorum}). */
    QUORUM;

    /** The configuration word: {@code auto}, {@code classic}, {@code quorum}. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The arguments of a queue declaration of this (resolved) type; null for a classic queue. */
    Map<String, Object> arguments() {
        if (this == AUTO) throw new IllegalStateException("resolve AUTO first");
        return this == QUORUM ? Map.of("x-queue-type", "quorum") : null;
    }
}
