package keel.http.execution;

import keel.core.loop.EventLoop;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Virtual threads made during a loop's turn start as it ends; one that cannot start is answered for, not lost. */
class TurnStartsTest {

    @Test
    void threadsMadeInATurnStartAfterItsTasksAndOneThatCannotStartRunsItsFailure() throws Exception {
        EventLoop loop = new EventLoop(EventLoop.Options.named("turn-starts"));
        List<String> events = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(2);
        loop.start();
        try {
            Thread started = Thread.ofVirtual().unstarted(() -> { });
            started.start(); // starting it again fails
            started.join();
            loop.execute(() -> {
                TurnStarts.start(Thread.ofVirtual().unstarted(() -> {
                    events.add("ran");
                    done.countDown();
                }), () -> events.add("first failed"));
                TurnStarts.start(started, () -> {
                    events.add("second failed");
                    done.countDown();
                });
                events.add("turn went on"); // neither thread has started yet
            });
            assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        } finally {
            loop.shutdown();
        }
        assertThat(events.getFirst()).isEqualTo("turn went on");
        assertThat(events).containsExactlyInAnyOrder("turn went on", "ran", "second failed");
    }
}
