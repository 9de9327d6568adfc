package keel.core.loop;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventLoopTest {
    private final EventLoop loop = new EventLoop(EventLoop.Options.named("test-loop"));

    @AfterEach
    void stop() throws InterruptedException {
        loop.shutdown();
        assertThat(loop.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void runsTasksFromOtherThreadsOnTheLoopThreadInOrder() throws Exception {
        loop.start();
        List<Integer> seen = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<String> thread = new CompletableFuture<>();
        for (int i = 0; i < 1000; i++) {
            int n = i;
            loop.execute(() -> seen.add(n));
        }
        loop.execute(() -> thread.complete(Thread.currentThread().getName()));
        assertThat(thread.get(5, TimeUnit.SECONDS)).isEqualTo("test-loop");
        assertThat(seen).hasSize(1000).isSorted();
    }

    @Test
    void wakesALoopBlockedInSelectWhenATaskArrives() throws Exception {
        loop.start();
        for (int round = 0; round < 200; round++) {
            // With no timers the loop blocks in select without a timeout: only a wakeup can run this task.
            CountDownLatch ran = new CountDownLatch(1);
            loop.execute(ran::countDown);
            assertThat(ran.await(5, TimeUnit.SECONDS)).as("round %d", round).isTrue();
        }
    }

    @Test
    void firesScheduledTimersOnTheLoop() throws Exception {
        loop.start();
        CompletableFuture<Boolean> fired = new CompletableFuture<>();
        loop.execute(() -> loop.schedule(20, TimeUnit.MILLISECONDS, () -> fired.complete(loop.inEventLoop())));
        assertThat(fired.get(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void survivesAFailingTask() throws Exception {
        loop.start();
        loop.execute(() -> {
            throw new IllegalStateException("boom");
        });
        CompletableFuture<Boolean> after = new CompletableFuture<>();
        loop.execute(() -> after.complete(true));
        assertThat(after.get(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void survivesAFailingTimerAndKeepsFiringOthers() throws Exception {
        loop.start();
        CompletableFuture<Boolean> later = new CompletableFuture<>();
        loop.execute(() -> {
            loop.schedule(5, TimeUnit.MILLISECONDS, () -> {
                throw new OutOfMemoryError("simulated");
            });
            loop.schedule(30, TimeUnit.MILLISECONDS, () -> later.complete(true));
        });
        assertThat(later.get(5, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Boolean> task = new CompletableFuture<>();
        loop.execute(() -> task.complete(true));
        assertThat(task.get(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void refusesTasksAfterShutdown() throws InterruptedException {
        loop.start();
        loop.shutdown();
        assertThat(loop.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> loop.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }
}
