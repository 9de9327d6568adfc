package keel.core.guard;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A lock-free, fixed-size histogram of durations in microseconds, precise to about 6 %: 16 linear
 * buckets below 16 µs, then 16 sub-buckets per power of two up to about 12 days. Any thread may
 * record; any thread may read (a read is a consistent-enough view, not an atomic snapshot).
 */
public final class LatencyHistogram {
    private static final int SUB_BUCKETS = 16;
    private static final int MAX_EXPONENT = 40;
    private static final int BUCKETS = SUB_BUCKETS + (MAX_EXPONENT - 3) * SUB_BUCKETS;

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
    private final AtomicLong count = new AtomicLong();
    private final AtomicLong sumMicros = new AtomicLong();
    private final AtomicLong maxMicros = new AtomicLong();

    /** An empty histogram. */
    public LatencyHistogram() {
    }

    /** Count, sum, maximum and percentiles in microseconds. */
    public record Snapshot(long count, long sumMicros, long maxMicros, long p50Micros, long p90Micros, long p99Micros,
                           long p999Micros) {
    }

    public void record(long duration, TimeUnit unit) {
        long micros = Math.max(0, unit.toMicros(duration));
        counts.incrementAndGet(index(micros));
        count.incrementAndGet();
        sumMicros.addAndGet(micros);
        maxMicros.accumulateAndGet(micros, Math::max);
    }

    public long count() {
        return count.get();
    }

    public long maxMicros() {
        return maxMicros.get();
    }

    /** The value at quantile {@code q} (0..1): the upper edge of its bucket, never above the maximum. */
    public long percentileMicros(double q) {
        long total = count.get();
        if (total == 0) return 0;
        long rank = Math.max(1, (long) Math.ceil(q * total));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts.get(i);
            if (seen >= rank) return Math.min(lowerBound(i + 1) - 1, maxMicros.get());
        }
        return maxMicros.get();
    }

    public Snapshot snapshot() {
        return new Snapshot(count.get(), sumMicros.get(), maxMicros.get(), percentileMicros(0.5), percentileMicros(0.9),
                percentileMicros(0.99), percentileMicros(0.999));
    }

    static int index(long micros) {
        if (micros < SUB_BUCKETS) return (int) micros;
        int exponent = 63 - Long.numberOfLeadingZeros(micros);
        if (exponent >= MAX_EXPONENT) return BUCKETS - 1;
        int sub = (int) (micros >>> (exponent - 4)) & (SUB_BUCKETS - 1);
        return SUB_BUCKETS + (exponent - 4) * SUB_BUCKETS + sub;
    }

    static long lowerBound(int index) {
        if (index < SUB_BUCKETS) return index;
        int exponent = (index - SUB_BUCKETS) / SUB_BUCKETS + 4;
        int sub = (index - SUB_BUCKETS) % SUB_BUCKETS;
        return (long) (SUB_BUCKETS + sub) << (exponent - 4);
    }
}
