package keel.core.loop;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TaskQueueTest {
    @Test
    void refusesTasksPastTheQueueBound() {
        TaskQueue queue = new TaskQueue(3);
        for (int i = 0; i < 3; i++) queue.offer(() -> { });
        assertThatThrownBy(() -> queue.offer(() -> { })).isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("full");
        assertThat(queue.size()).isEqualTo(3);
        queue.poll();
        queue.offer(() -> { });
        assertThat(queue.size()).isEqualTo(3);
    }

    @Test
    void aClosedQueueRefusesOffersAndHandsOverEveryTaskAcceptedBefore() throws Exception {
        for (int round = 0; round < 50; round++) {
            TaskQueue queue = new TaskQueue(1 << 20);
            AtomicInteger accepted = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            AtomicInteger drained = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            Thread[] producers = new Thread[4];
            for (int p = 0; p < producers.length; p++) {
                producers[p] = Thread.ofPlatform().start(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < 5_000; i++) {
                        try {
                            queue.offer(drained::incrementAndGet);
                            accepted.incrementAndGet();
                        } catch (RejectedExecutionException stopped) {
                            refused.incrementAndGet();
                        }
                    }
                });
            }
            go.countDown();
            Thread.onSpinWait();
            queue.close(); // while the producers offer
            queue.drainAfterClose(Runnable::run);
            for (Thread producer : producers) producer.join();
            assertThat(accepted.get() + refused.get()).isEqualTo(20_000);
            assertThat(drained.get()).as("round %d: every accepted task ran, none lost", round).isEqualTo(accepted.get());
            assertThatThrownBy(() -> queue.offer(() -> { })).isInstanceOf(RejectedExecutionException.class).hasMessageContaining("stopped");
        }
    }

    @Test
    void aReservedPlaceCountsAgainstTheBoundAndItsOfferIsNeverRefusedForIt() {
        TaskQueue queue = new TaskQueue(2);
        assertThat(queue.tryReserve()).isTrue();
        queue.offer(() -> { });
        assertThat(queue.tryReserve()).as("the bound counts the reservation").isFalse();
        assertThatThrownBy(() -> queue.offer(() -> { })).isInstanceOf(RejectedExecutionException.class).hasMessageContaining("full");
        assertThat(queue.size()).as("a reservation is no queued task").isEqualTo(1);
        assertThat(queue.reserved()).isEqualTo(1);

        queue.offerReserved(() -> { });
        assertThat(queue.size()).isEqualTo(2);
        assertThat(queue.reserved()).isZero();
        queue.poll();
        queue.poll();
        assertThat(queue.isEmpty()).isTrue();
        assertThat(queue.tryReserve()).isTrue();
        assertThat(queue.tryReserve()).isTrue();
        queue.cancelReservations(2);
        assertThat(queue.reserved()).isZero();
        assertThat(queue.tryReserve()).isTrue();
        assertThat(queue.tryReserve()).isTrue();
        assertThat(queue.tryReserve()).as("two places, both reserved").isFalse();
        assertThat(queue.isEmpty()).as("reservations alone leave the loop free to block in its poll").isTrue();
    }

    @Test
    void aClosedQueueRefusesReservationsAndTheirOffersAndItsDrainDoesNotWaitForThem() {
        TaskQueue queue = new TaskQueue(4);
        assertThat(queue.tryReserve()).isTrue();
        queue.offer(() -> { });
        queue.close();
        AtomicInteger drained = new AtomicInteger();
        queue.drainAfterClose(task -> drained.incrementAndGet());
        assertThat(drained.get()).isEqualTo(1);
        assertThat(queue.tryReserve()).isFalse();
        assertThatThrownBy(() -> queue.offerReserved(() -> { })).isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("stopped");
        assertThat(queue.reserved()).isZero();
    }
}
