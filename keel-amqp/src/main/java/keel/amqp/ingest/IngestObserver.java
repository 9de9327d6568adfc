package keel.amqp.ingest;

/**
 * Hears what the {@link Ingest} pipeline stores, for metrics ({@link IngestMetrics} binds it to
 * Micrometer). Methods run on the thread that consumes or writes (the broker client's consumer
 * thread, a writer thread): they must be cheap and never block. Every method has an empty default.
 */
public interface IngestObserver {
    IngestObserver NONE = new IngestObserver() {
    };

    /**
     * A batch of {@code size} events was committed in one statement and acked; {@code stored} of
     * them were new rows, the rest already stored (redelivered duplicates). {@code sequential}
     * mode stores batches of one.
     */
    default void onBatchStored(int size, int stored) {
    }

    /** A delivery arrived flagged as redelivered: the broker sent it before, unacked. */
    default void onRedelivered() {
    }
}
