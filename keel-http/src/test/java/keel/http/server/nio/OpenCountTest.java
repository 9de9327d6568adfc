package keel.http.server.nio;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class OpenCountTest {
    private static final long FAR = TimeUnit.SECONDS.toNanos(30);

    @Test
    void aServerWithNoConnectionIsDrainedAtOnce() throws Exception {
        OpenCount count = new OpenCount();
        count.opened();
        count.closed();

        assertThat(count.awaitNone(System.nanoTime() + FAR)).isTrue();
    }

    @Test
    void theLastCloseWakesTheStopThatWaitsForIt() throws Exception {
        OpenCount count = new OpenCount();
        count.opened();
        count.opened();
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Boolean> drained = CompletableFuture.supplyAsync(() -> {
            waiting.countDown();
            try {
                return count.awaitNone(System.nanoTime() + FAR);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        waiting.await();
        count.closed();
        assertThat(drained).isNotDone();
        count.closed();

        // Only the last close can end the wait before its 30 s deadline, with true.
        assertThat(drained.get(20, TimeUnit.SECONDS)).isTrue();
        assertThat(count.get()).isZero();
    }

    @Test
    void aWaitPastItsDeadlineSaysConnectionsAreStillOpen() throws Exception {
        OpenCount count = new OpenCount();
        count.opened();

        assertThat(count.awaitNone(System.nanoTime() - 1)).isFalse();
        assertThat(count.get()).isEqualTo(1);
    }
}
