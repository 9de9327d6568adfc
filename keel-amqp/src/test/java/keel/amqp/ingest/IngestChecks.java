package keel.amqp.ingest;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** What the ingest tests check: the rows stored for a run's events (ids {@code <prefix>-<i>}), and waiting for a condition. */
final class IngestChecks {
    private IngestChecks() {
    }

    static long rows(Connection database, String prefix) {
        return count(database, "SELECT count(*) FROM device_events WHERE event_id LIKE ?", prefix);
    }

    static long distinctRows(Connection database, String prefix) {
        return count(database, "SELECT count(DISTINCT event_id) FROM device_events WHERE event_id LIKE ?", prefix);
    }

    private static long count(Connection database, String sql, String prefix) {
        try (PreparedStatement query = database.prepareStatement(sql)) {
            query.setString(1, prefix + "-%");
            try (ResultSet result = query.executeQuery()) {
                result.next();
                return result.getLong(1);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits for {@code condition}, polling every 20 ms; fails with the pipeline's state past {@code timeout}. */
    static void await(BooleanSupplier condition, Duration timeout, Ingest ingest) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("not reached within " + timeout + ": " + ingest.json());
            Thread.sleep(20);
        }
    }
}
