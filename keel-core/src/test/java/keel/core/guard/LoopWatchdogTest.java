package keel.core.guard;

import keel.core.loop.EventLoop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class LoopWatchdogTest {
    private final EventLoop loop = new EventLoop(EventLoop.Options.named("watched-loop"));
    private final List<BlockedLoop> reports = new CopyOnWriteArrayList<>();
    /** Well above a scheduling hiccup on a busy 2-core machine, well below the 600 ms block. */
    private static final Duration THRESHOLD = Duration.ofMillis(250);
    private final LoopWatchdog watchdog = new LoopWatchdog(List.of(loop), THRESHOLD, reports::add);

    @AfterEach
    void stop() throws InterruptedException {
        watchdog.close();
        loop.shutdown();
        loop.awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void reportsALoopStuckInOneTaskOnceWithItsStackAndActivity() throws Exception {
        loop.start();
        watchdog.start();
        CountDownLatch done = new CountDownLatch(1);
        loop.execute(() -> {
            loop.markActivity("GET /slow");
            try {
                Thread.sleep(600);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            loop.markActivity(null);
            done.countDown();
        });
        assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(100);
        assertThat(reports).hasSize(1);
        BlockedLoop report = reports.getFirst();
        assertThat(report.loop()).isSameAs(loop);
        assertThat(report.activity()).isEqualTo("GET /slow");
        assertThat(report.blockedNanos()).isGreaterThanOrEqualTo(THRESHOLD.toNanos());
        assertThat(Arrays.stream(report.stack()).map(StackTraceElement::toString))
                .anyMatch(frame -> frame.contains("Thread.sleep"))
                .anyMatch(frame -> frame.contains(LoopWatchdogTest.class.getName()));
        assertThat(report.stackText(3)).startsWith("\n\tat ");
    }

    @Test
    void aRoundCaughtBetweenTwoLabelledTasksIsReportedWithTheLastOne() throws Exception {
        loop.start();
        watchdog.start();
        CountDownLatch done = new CountDownLatch(1);
        loop.execute(() -> {
            loop.markActivity("GET /nap");
            loop.markActivity(null);
            try {
                Thread.sleep(600); // past the threshold, outside any labelled work
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            done.countDown();
        });
        assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(100);
        assertThat(reports).hasSize(1);
        assertThat(reports.getFirst().activity()).isEqualTo("GET /nap");
    }

    @Test
    void staysQuietForAnIdleLoopAndForManyShortTasks() throws Exception {
        loop.start();
        watchdog.start();
        Thread.sleep(600); // idle: waiting in select
        for (int i = 0; i < 300; i++) {
            CountDownLatch ran = new CountDownLatch(1);
            loop.execute(() -> {
                busyFor(TimeUnit.MILLISECONDS.toNanos(1));
                ran.countDown();
            });
            assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(reports).isEmpty();
    }

    private static void busyFor(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) Thread.onSpinWait();
    }
}
