package keel.http.accesslog;

import keel.core.log.LogFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The access log's writer thread on its own: it never sleeps through a line, and never makes a producer wait. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AccessLogWriterTest {
    /** Offers the line of a request with id {@code id}, as a connection of the blocking transport does. */
    private static void offer(AccessLog log, String id) {
        log.blockingLines().add(System.nanoTime(), id, null, "GET", "/x", 200, 0, 10, 1_000, AccessLines.BLOCKING);
    }

    @Test
    void aWriterWokenOverAndOverNeverSleepsThroughALine() throws Exception {
        int producers = 3;
        int rounds = 3_000;
        LineSink sink = LineSink.open();
        // No gathering: every round finds the writer asleep and races the offers against its going to sleep.
        AccessLog log = new AccessLog(LogFormat.TEXT, 16, sink, false, "test", 0);
        CyclicBarrier start = new CyclicBarrier(producers + 1);
        CyclicBarrier offered = new CyclicBarrier(producers + 1);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int producer = p;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    for (int round = 0; round < rounds; round++) {
                        start.await();
                        offer(log, producer + "-" + round);
                        offered.await();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        try {
            for (int round = 0; round < rounds; round++) {
                start.await(5, TimeUnit.SECONDS);
                offered.await(5, TimeUnit.SECONDS);
                Set<String> ids = new HashSet<>();
                for (int p = 0; p < producers; p++) ids.add(sink.next().split(" ")[2]); // fails after 5 s without the line
                assertThat(ids).hasSize(producers);
            }
        } finally {
            for (Thread thread : threads) thread.join(5_000);
            log.close();
        }
        assertThat(log.dropped()).isZero();
    }

    @Test
    void aQueueFillingUpIsTakenAtOnceWhileItsLinesGather() throws Exception {
        LineSink sink = LineSink.open();
        AccessLog log = new AccessLog(LogFormat.TEXT, 8, sink, false, "test", TimeUnit.SECONDS.toNanos(30));
        try {
            // The first line wakes the writer, which then lets lines gather for 30 s: only an offer that
            // fills a quarter of the queue wakes it again, to take them.
            for (int i = 0; i < 40; i++) {
                awaitRoom(log, 8);
                offer(log, "id-" + i);
            }
            assertThat(log.dropped()).as("40 lines through a queue of 8").isZero();
            assertThat(sink.waiting()).as("lines still gathering").isZero();
        } finally {
            log.close();
        }
        for (int i = 0; i < 40; i++) assertThat(sink.next()).contains(" request_id=id-" + i + " ");
    }

    private static void awaitRoom(AccessLog log, int limit) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (log.queuedLines() >= limit) {
            if (System.nanoTime() > deadline) throw new AssertionError("the writer left the queue full for 5 s");
            Thread.onSpinWait();
        }
    }

    @Test
    void closingWritesWhatIsQueuedAndEndsTheThread() throws Exception {
        LineSink sink = LineSink.open();
        AccessLog log = new AccessLog(LogFormat.JSON, 100, sink, false, "test", TimeUnit.SECONDS.toNanos(30));
        for (int i = 0; i < 50; i++) offer(log, "id-" + i);
        log.close(); // the writer is gathering for 30 s: the close wakes it
        for (int i = 0; i < 50; i++) assertThat(sink.next()).contains("\"request_id\":\"id-" + i + "\"");
        offer(log, "late");
        assertThat(log.dropped()).as("a line offered after the close").isEqualTo(1);
        assertThat(sink.waiting()).isZero();
    }
}
