package keel.core.loop;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventLoopTest {
    private final EventLoop loop = new EventLoop(EventLoop.Options.named("test-loop"));
    private final List<EventLoop> started = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        for (EventLoop each : started) {
            each.shutdown();
            assertThat(each.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    private EventLoop start(EventLoop each) {
        each.start();
        started.add(each);
        return each;
    }

    /** A loop whose clock moves only when the test moves it, with a 1 ms turn budget. */
    private EventLoop startManual(AtomicLong now) {
        return start(new EventLoop(EventLoop.Options.named("budget-loop").withTurnBudget(Duration.ofMillis(1)), now::get));
    }

    @Test
    void aTurnEndHookAskedForSeveralTimesInATurnRunsOnceAfterTheTurnsTasks() throws Exception {
        // The clock stands still, so the 1 ms turn budget is never spent: on the real clock, linking this
        // test's lambdas the first time can take longer, end the turn after the first task and run the hook first.
        EventLoop manual = startManual(new AtomicLong());
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch ran = new CountDownLatch(1);
        Runnable hook = () -> {
            events.add("hook");
            ran.countDown();
        };
        manual.execute(() -> {
            for (int i = 0; i < 3; i++) manual.atTurnEnd(hook);
            manual.execute(() -> events.add("task queued in the turn"));
        });
        assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> later = new CompletableFuture<>();
        manual.execute(() -> later.complete(null));
        later.get(5, TimeUnit.SECONDS);
        assertThat(events).containsExactly("task queued in the turn", "hook");
    }

    @Test
    void runsTasksFromOtherThreadsOnTheLoopThreadInOrder() throws Exception {
        start(loop);
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
        start(loop);
        for (int round = 0; round < 200; round++) {
            // With no timers the loop blocks in select without a timeout: only a wakeup can run this task.
            CountDownLatch ran = new CountDownLatch(1);
            loop.execute(ran::countDown);
            assertThat(ran.await(5, TimeUnit.SECONDS)).as("round %d", round).isTrue();
        }
    }

    @Test
    void firesScheduledTimersOnTheLoop() throws Exception {
        start(loop);
        CompletableFuture<Boolean> fired = new CompletableFuture<>();
        loop.execute(() -> loop.schedule(20, TimeUnit.MILLISECONDS, () -> fired.complete(loop.inEventLoop())));
        assertThat(fired.get(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void survivesAFailingTask() throws Exception {
        start(loop);
        loop.execute(() -> {
            throw new IllegalStateException("boom");
        });
        CompletableFuture<Boolean> after = new CompletableFuture<>();
        loop.execute(() -> after.complete(true));
        assertThat(after.get(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void survivesAFailingTimerAndKeepsFiringOthers() throws Exception {
        start(loop);
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
    void firesADueTimerBetweenReadyChannelsOnceTheTurnBudgetIsSpent() throws Exception {
        AtomicLong now = new AtomicLong();
        EventLoop manual = startManual(now);
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch handled = new CountDownLatch(10);
        // The timer first: queued after the pipes, it could reach the loop only after their poll.
        manual.execute(() -> manual.schedule(1, TimeUnit.MILLISECONDS, () -> events.add("timer")));
        registerReadablePipes(manual, 10, (index, keys, ops) -> {
            keys[index].cancel();
            events.add("io");
            now.addAndGet(TimeUnit.MILLISECONDS.toNanos(2)); // each channel costs more than the whole budget
            handled.countDown();
        });
        assertThat(handled.await(5, TimeUnit.SECONDS)).isTrue();
        // All ten were ready in one select; the timer fell due during the first: it runs after the
        // first, not after all ten.
        assertThat(events).hasSize(11).containsOnlyOnce("timer");
        assertThat(events.indexOf("timer")).isEqualTo(1);
    }

    @Test
    void firesADueTimerBetweenQueuedTasksOnceTheTurnBudgetIsSpent() throws Exception {
        AtomicLong now = new AtomicLong();
        EventLoop manual = startManual(now);
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(1);
        manual.execute(() -> {
            manual.schedule(0, TimeUnit.MILLISECONDS, () -> events.add("timer"));
            for (int i = 0; i < 200; i++) {
                manual.execute(() -> {
                    events.add("task");
                    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
                });
            }
            manual.execute(done::countDown);
        });
        assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(events).hasSize(201).containsOnlyOnce("timer");
        // Each task costs 1 ms against a 1 ms budget: the budget is spent after the second, and the
        // timer runs there instead of after all 200.
        assertThat(events.indexOf("timer")).isEqualTo(2);
    }

    @Test
    void aTaskSeesTheClockAsTheLoopReadItBeforeTheTaskWithoutReadingItAgain() throws Exception {
        AtomicLong now = new AtomicLong(1_000);
        AtomicLong reads = new AtomicLong();
        EventLoop counting = start(new EventLoop(EventLoop.Options.named("clock-loop"), () -> {
            reads.incrementAndGet();
            return now.get();
        }));
        CompletableFuture<long[]> seen = new CompletableFuture<>();
        counting.execute(() -> {
            now.addAndGet(500); // the clock moves while the first task runs
            counting.execute(() -> {
                long readsBefore = reads.get();
                long last = counting.lastNanoTime();
                seen.complete(new long[]{last, reads.get() - readsBefore});
            });
        });
        long[] result = seen.get(5, TimeUnit.SECONDS);
        assertThat(result[0]).as("read after the first task").isEqualTo(1_500);
        assertThat(result[1]).as("clock reads made by lastNanoTime").isZero();
    }

    @Test
    void passesOnlyTheReadyOperationsARegistrationStillWants() throws Exception {
        start(loop);
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch both = new CountDownLatch(2);
        Poller.Registration[] registered = registerReadablePipes(loop, 2, (self, keys, ops) -> {
            events.add("ready " + self + " ops " + ops);
            keys[self].interest(0);
            // Both were selected together; whichever runs first stops the other wanting input.
            if (keys[1 - self].isValid()) keys[1 - self].interest(0);
            both.countDown();
        });
        CompletableFuture<List<String>> afterFirst = new CompletableFuture<>();
        loop.execute(() -> loop.schedule(50, TimeUnit.MILLISECONDS, () -> afterFirst.complete(List.copyOf(events))));
        assertThat(afterFirst.get(5, TimeUnit.SECONDS)).hasSize(1).allMatch(e -> e.endsWith("ops " + Poller.READ));
        // Wanted again, the other one still has its byte and is handled.
        loop.execute(() -> {
            for (Poller.Registration key : registered) if (key.isValid()) key.interest(Poller.READ);
        });
        assertThat(both.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(events).hasSize(2).anyMatch(e -> e.startsWith("ready 0")).anyMatch(e -> e.startsWith("ready 1"));
    }

    @Test
    void skipsAReadyChannelClosedBeforeItsTurnAndKeepsRunning() throws Exception {
        start(loop);
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch one = new CountDownLatch(1);
        registerReadablePipes(loop, 2, (self, keys, ops) -> {
            events.add("ready " + self);
            // Both were selected together; whichever runs first closes the other's channel.
            keys[1 - self].close();
            one.countDown();
        });
        assertThat(one.await(5, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Boolean> after = new CompletableFuture<>();
        loop.execute(() -> after.complete(true));
        assertThat(after.get(5, TimeUnit.SECONDS)).as("the loop still runs tasks").isTrue();
        assertThat(events).hasSize(1);
    }

    /** Called with the ready pipe's index, every pipe's key and its ready operations, after its byte was read. */
    private interface PipeHandler {
        void onReady(int index, Poller.Registration[] keys, int ops);
    }

    /**
     * Registers {@code count} pipes on {@code on}, from its own thread, each with one byte waiting,
     * so that one poll finds them all ready. The registrations are filled in before the loop polls.
     */
    private static Poller.Registration[] registerReadablePipes(EventLoop on, int count, PipeHandler handler) {
        Poller.Registration[] keys = new Poller.Registration[count];
        on.execute(() -> {
            try {
                for (int i = 0; i < count; i++) {
                    int index = i;
                    Pipe pipe = readablePipe();
                    keys[i] = on.register(pipe.source(), Poller.READ, ops -> {
                        drain(pipe);
                        handler.onReady(index, keys, ops);
                    });
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return keys;
    }

    private static Pipe readablePipe() throws IOException {
        Pipe pipe = Pipe.open();
        pipe.source().configureBlocking(false);
        pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));
        return pipe;
    }

    private static void drain(Pipe pipe) {
        try {
            pipe.source().read(ByteBuffer.allocate(16));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aTaskHandedToAStoppingLoopRunsOrIsRefusedNeverLost() throws Exception {
        for (int round = 0; round < 20; round++) {
            EventLoop stopping = start(new EventLoop(EventLoop.Options.named("stopping-" + round)));
            java.util.concurrent.atomic.AtomicInteger ran = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
            Thread[] producers = new Thread[3];
            for (int p = 0; p < producers.length; p++) {
                producers[p] = Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < 2_000; i++) {
                        try {
                            stopping.execute(ran::incrementAndGet);
                        } catch (RejectedExecutionException stopped) {
                            refused.incrementAndGet();
                        }
                    }
                });
            }
            stopping.shutdown(); // while the producers hand over tasks
            for (Thread producer : producers) producer.join();
            assertThat(stopping.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
            assertThat(ran.get() + refused.get()).as("round %d: every task ran or was refused", round).isEqualTo(6_000);
        }
    }

    @Test
    void refusesTasksAfterShutdown() throws InterruptedException {
        start(loop);
        loop.shutdown();
        assertThat(loop.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> loop.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }
}
