package keel.http.execution;

import keel.core.loop.EventLoop;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The pool's hand-over: every task runs, and one that blocks its thread never holds up the others while a thread is idle. */
class WorkerPoolTest {

    @Test
    void aTaskQueuedInTheSameLoopTurnAsABlockedOneRunsOnAnotherThread() throws Exception {
        withPoolAndLoop(WorkerPoolTest::blockOneAndRunTheNext);
    }

    @Test
    void theWatchThatSleptAfterQuietTicksWakesForTheNextTasks() throws Exception {
        withPoolAndLoop((pool, loop) -> {
            blockOneAndRunTheNext(pool, loop);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!pool.watchAsleep() && System.nanoTime() - deadline < 0) Thread.onSpinWait();
            assertThat(pool.watchAsleep()).as("the watch sleeps once no task has come for its quiet ticks").isTrue();
            blockOneAndRunTheNext(pool, loop);
        });
    }

    private interface PoolAndLoop {
        void run(WorkerPool pool, EventLoop loop) throws Exception;
    }

    /** A pool of two threads and a loop handing it tasks, both stopped after {@code body}. */
    private static void withPoolAndLoop(PoolAndLoop body) throws Exception {
        WorkerPool pool = new WorkerPool("test-worker-", 2);
        pool.start();
        EventLoop loop = new EventLoop(EventLoop.Options.named("test-loop"));
        loop.start();
        try {
            body.run(pool, loop);
        } finally {
            loop.shutdown();
            pool.shutdown();
        }
    }

    /** One turn hands over two tasks: it wakes one thread, which takes the blocking one first; the watch gets the other one run. */
    private static void blockOneAndRunTheNext(WorkerPool pool, EventLoop loop) throws InterruptedException {
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch fastDone = new CountDownLatch(1);
        try {
            loop.execute(() -> {
                pool.execute(() -> {
                    blocked.countDown();
                    awaitQuietly(release);
                });
                pool.execute(fastDone::countDown);
            });
            assertThat(blocked.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(fastDone.await(5, TimeUnit.SECONDS)).as("the task behind the blocked one ran on the idle thread").isTrue();
            assertThat(release.getCount()).isEqualTo(1);
        } finally {
            release.countDown();
        }
    }

    @Test
    void tasksFromLoopsAndOtherThreadsAllRunAndShutdownRefusesNewOnes() throws Exception {
        WorkerPool pool = new WorkerPool("test-worker-", 3);
        List<EventLoop> loops = List.of(new EventLoop(EventLoop.Options.named("test-loop-0")), new EventLoop(EventLoop.Options.named("test-loop-1")));
        loops.forEach(EventLoop::start);
        int perProducer = 20_000;
        CountDownLatch done = new CountDownLatch(3 * perProducer);
        AtomicInteger ran = new AtomicInteger();
        Set<String> threads = ConcurrentHashMap.newKeySet();
        Runnable task = () -> {
            threads.add(Thread.currentThread().getName());
            ran.incrementAndGet();
            done.countDown();
        };
        try {
            for (EventLoop loop : loops) {
                for (int i = 0; i < perProducer / 100; i++) {
                    loop.execute(() -> {
                        for (int j = 0; j < 100; j++) pool.execute(task);
                    });
                }
            }
            for (int i = 0; i < perProducer; i++) pool.execute(task); // not on a loop: woken at once
            assertThat(done.await(20, TimeUnit.SECONDS)).as("ran %d", ran.get()).isTrue();
            assertThat(threads).allMatch(name -> name.startsWith("test-worker-"));
            pool.shutdown();
            assertThatThrownBy(() -> pool.execute(task)).isInstanceOf(RejectedExecutionException.class);
        } finally {
            loops.forEach(EventLoop::shutdown);
            pool.shutdown();
        }
    }

    @Test
    void aPoolThatMayGrowStartsAThreadForTasksBehindStuckOnesAndNoMore() throws Exception {
        WorkerPool pool = new WorkerPool("test-grow-", 1, 3);
        pool.start();
        CountDownLatch release = new CountDownLatch(1);
        try {
            assertThat(pool.threads()).isEqualTo(1);
            occupyThenRunBehind(pool, () -> awaitQuietly(release), "the task behind the stuck thread ran on a new one");
            assertThat(pool.threads()).as("one stuck thread, one more started").isEqualTo(2);
        } finally {
            release.countDown();
            pool.shutdown();
        }
    }

    @Test
    void aThreadBusyComputingIsNotStuck() throws Exception {
        WorkerPool pool = new WorkerPool("test-busy-", 1, 3);
        pool.start();
        try {
            occupyThenRunBehind(pool, () -> {
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50); // some 50 ticks of work, no wait
                while (System.nanoTime() - until < 0) Thread.onSpinWait();
            }, "the task behind the computing one ran");
            assertThat(pool.threads()).as("a thread on a CPU is not stuck: another would share that CPU").isEqualTo(1);
        } finally {
            pool.shutdown();
        }
    }

    /** Runs {@code occupying} on the pool's one core thread and, once it has started, a task behind it: waits for that one to run. */
    private static void occupyThenRunBehind(WorkerPool pool, Runnable occupying, String behindRan) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch behind = new CountDownLatch(1);
        pool.execute(() -> {
            started.countDown();
            occupying.run();
        });
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        pool.execute(behind::countDown);
        assertThat(behind.await(5, TimeUnit.SECONDS)).as(behindRan).isTrue();
    }

    @Test
    void aPoolThatMayNotGrowKeepsItsThreads() throws Exception {
        WorkerPool pool = new WorkerPool("test-fixed-", 1);
        pool.start();
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch behind = new CountDownLatch(1);
        try {
            pool.execute(() -> awaitQuietly(release));
            pool.execute(behind::countDown);
            // The watch ticks every millisecond: many ticks pass while the one thread is stuck, none grows the pool.
            assertThat(behind.await(200, TimeUnit.MILLISECONDS)).isFalse();
            assertThat(pool.threads()).isEqualTo(1);
            release.countDown();
            assertThat(behind.await(5, TimeUnit.SECONDS)).isTrue();
        } finally {
            release.countDown();
            pool.shutdown();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
