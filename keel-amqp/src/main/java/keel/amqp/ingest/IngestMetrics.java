package keel.amqp.ingest;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Binds an {@link Ingest} pipeline to Micrometer:
 *
 * <ul>
 *   <li>{@code keel_ingest_batch_size} (distribution of events per committed statement, with buckets
 *       from 1 to 1000: {@code _bucket{le}}, {@code _count}, {@code _sum}, {@code _max})</li>
 *   <li>{@code keel_ingest_rows_stored_total} (new rows), {@code keel_ingest_duplicates_total}
 *       (events skipped because their row existed)</li>
 *   <li>{@code keel_ingest_redeliveries_total} (deliveries flagged as redelivered)</li>
 * </ul>
 *
 * Threads: any (see {@link IngestObserver}); a batch costs one record and two increments. One
 * instance per pipeline.
 */
public final class IngestMetrics implements IngestObserver {
    private static final double[] BATCH_BUCKETS = {1, 2, 5, 10, 25, 50, 100, 250, 500, 1000};

    private final DistributionSummary batchSize;
    private final Counter stored;
    private final Counter duplicates;
    private final Counter redeliveries;

    public IngestMetrics(MeterRegistry registry) {
        this.batchSize = DistributionSummary.builder("keel.ingest.batch.size")
                .description("Events stored per committed statement")
                .serviceLevelObjectives(BATCH_BUCKETS)
                .register(registry);
        this.stored = Counter.builder("keel.ingest.rows.stored").description("Events stored as new rows").register(registry);
        this.duplicates = Counter.builder("keel.ingest.duplicates")
                .description("Events skipped because their row was already stored").register(registry);
        this.redeliveries = Counter.builder("keel.ingest.redeliveries")
                .description("Deliveries the broker flagged as redelivered").register(registry);
    }

    @Override
    public void onBatchStored(int size, int storedRows) {
        batchSize.record(size);
        stored.increment(storedRows);
        duplicates.increment(size - storedRows);
    }

    @Override
    public void onRedelivered() {
        redeliveries.increment();
    }
}
