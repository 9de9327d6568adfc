package keel.amqp.ingest;

import java.util.Locale;

/** How the ingest pipeline moves deliveries into the database. */
public enum IngestMode {
    /** One delivery at a time: insert, commit, ack, next (prefetch 1). */
    SEQUENTIAL,
    /** Prefetch-limited deliveries, inserted in batches by a bounded set of writers, each acked after its commit. */
    PIPELINED;

    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }
}
