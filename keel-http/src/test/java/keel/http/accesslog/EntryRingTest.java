package keel.http.accesslog;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class EntryRingTest {
    @Test
    void holdsExactlyItsCapacityEvenWhenThatIsNoPowerOfTwo() {
        EntryRing<String> ring = new EntryRing<>(5);
        for (int i = 1; i <= 5; i++) assertThat(ring.offer("e" + i)).isEqualTo(i);
        assertThat(ring.offer("e6")).as("full").isZero();
        assertThat(ring.poll()).isEqualTo("e1");
        assertThat(ring.offer("e6")).isEqualTo(5);
        List<String> rest = new ArrayList<>();
        for (String e; (e = ring.poll()) != null; ) rest.add(e);
        assertThat(rest).containsExactly("e2", "e3", "e4", "e5", "e6");
        assertThat(ring.isEmpty()).isTrue();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void manyProducersLoseNothingAndKeepTheirOrder() throws Exception {
        int producers = 4;
        int each = 200_000;
        EntryRing<long[]> ring = new EntryRing<>(64);
        AtomicLong refused = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int producer = p;
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < each; i++) {
                    long[] element = {producer, i};
                    while (ring.offer(element) == 0) {
                        refused.incrementAndGet();
                        Thread.yield(); // a busy machine: let the consumer (or a producer preempted mid-publish) run
                    }
                }
            }));
        }
        long[] next = new long[producers];
        long received = 0;
        while (received < (long) producers * each) {
            long[] element = ring.poll();
            if (element == null) {
                Thread.yield();
                continue;
            }
            assertThat(element[1]).as("producer %d in order", element[0]).isEqualTo(next[(int) element[0]]);
            next[(int) element[0]]++;
            received++;
            assertThat(ring.size()).isLessThanOrEqualTo(64);
        }
        for (Thread thread : threads) thread.join();
        assertThat(ring.poll()).isNull();
        assertThat(next).containsOnly(each);
    }
}
