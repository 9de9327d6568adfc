package keel.metrics;

import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import keel.core.loop.EventLoop;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The request histogram: every record counted once from loops and other threads alike, the max over its window. */
class RequestTimesTest {
    private static final Duration[] BUCKETS = {Duration.ofMillis(1), Duration.ofMillis(10)};

    private final AtomicLong millis = new AtomicLong(1_000_000);
    private final RequestTimes times = new RequestTimes(BUCKETS, millis::get);

    @Test
    void recordsFromTwoLoopsAndFromOtherThreadsAreEachCountedOnceInTheirBucket() throws Exception {
        RequestTimes.Series series = times.series("GET", "/a", 200);
        int perThread = 100_000;
        List<EventLoop> loops = List.of(new EventLoop(EventLoop.Options.named("times-0")), new EventLoop(EventLoop.Options.named("times-1")));
        CountDownLatch done = new CountDownLatch(loops.size() + 2);
        try {
            for (EventLoop loop : loops) {
                loop.start();
                loop.execute(() -> {
                    for (int i = 0; i < perThread; i++) series.record(500_000); // 0.5 ms: the first bucket
                    done.countDown();
                });
            }
            List<Thread> others = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                others.add(Thread.ofVirtual().start(() -> {
                    for (int i = 0; i < perThread; i++) series.record(5_000_000); // 5 ms: the second
                    done.countDown();
                }));
            }
            // A scrape while they record sees counts that only grow.
            long seen = 0;
            while (!done.await(1, TimeUnit.MILLISECONDS)) {
                long count = count(times.collect());
                assertThat(count).isGreaterThanOrEqualTo(seen);
                seen = count;
            }
        } finally {
            for (EventLoop loop : loops) loop.shutdown();
        }
        HistogramSnapshot.HistogramDataPointSnapshot point = histogram(times.collect());
        assertThat(point.getClassicBuckets().getCount(0)).isEqualTo(2L * perThread);
        assertThat(point.getClassicBuckets().getCount(1)).isEqualTo(2L * perThread);
        assertThat(point.getClassicBuckets().getCount(2)).isZero(); // +Inf
        assertThat(point.getCount()).isEqualTo(4L * perThread);
        assertThat(point.getSum()).isEqualTo(2.0 * perThread * 0.0005 + 2.0 * perThread * 0.005, org.assertj.core.data.Offset.offset(1e-6));
    }

    @Test
    void aTimeOnABoundCountsInThatBoundsBucketAndALongerOneInTheNext() {
        RequestTimes.Series series = times.series("GET", "/a", 200);
        series.record(1_000_000);
        series.record(1_000_001);
        series.record(60_000_000_000L);
        var buckets = histogram(times.collect()).getClassicBuckets();
        assertThat(List.of(buckets.getCount(0), buckets.getCount(1), buckets.getCount(2))).containsExactly(1L, 1L, 1L);
    }

    @Test
    void theMaxIsTheLargestOfTheCurrentMinuteAndTheOneBeforeThenGoesBackToZero() {
        RequestTimes.Series series = times.series("GET", "/a", 200);
        series.record(7_000_000);
        series.record(3_000_000);
        assertThat(max(times.collect())).isEqualTo(0.007);
        millis.addAndGet(60_000); // the next window: the 7 ms still counts
        series.record(2_000_000);
        assertThat(max(times.collect())).isEqualTo(0.007);
        millis.addAndGet(60_000); // two windows on: only what came in the one before
        assertThat(max(times.collect())).isEqualTo(0.002);
        millis.addAndGet(60_000);
        assertThat(max(times.collect())).isZero();
        assertThat(histogram(times.collect()).getCount()).isEqualTo(3); // the counts never expire
    }

    private static long count(MetricSnapshots snapshots) {
        return histogram(snapshots).getCount();
    }

    private static HistogramSnapshot.HistogramDataPointSnapshot histogram(MetricSnapshots snapshots) {
        return snapshots.stream().filter(s -> s instanceof HistogramSnapshot).map(s -> (HistogramSnapshot) s).findFirst().orElseThrow()
                .getDataPoints().getFirst();
    }

    private static double max(MetricSnapshots snapshots) {
        return snapshots.stream().filter(s -> s instanceof GaugeSnapshot).map(s -> (GaugeSnapshot) s).findFirst().orElseThrow()
                .getDataPoints().getFirst().getValue();
    }
}
