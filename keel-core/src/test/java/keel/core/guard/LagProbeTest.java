package keel.core.guard;

import keel.core.loop.EventLoop;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

class LagProbeTest {
    @Test
    void seesALoopBlockedByHandlersWhoseLengthDividesTheInterval() throws Exception {
        EventLoop loop = new EventLoop(EventLoop.Options.named("probe-loop"));
        loop.start();
        AtomicBoolean stop = new AtomicBoolean();
        try {
            LagProbe probe = new LagProbe(loop, TimeUnit.MILLISECONDS.toNanos(100));
            loop.execute(probe::start);
            // Back-to-back 50 ms blocks: the loop is never free, and two blocks fill one interval exactly.
            loop.execute(new Runnable() {
                @Override
                public void run() {
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    if (!stop.get()) loop.execute(this);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (probe.histogram().count() < 20 && System.nanoTime() < deadline) Thread.sleep(50);
            assertThat(probe.histogram().count()).isGreaterThanOrEqualTo(20);
            // A probe due at a fixed 100 ms after each firing falls due just as a block ends and sees
            // almost nothing; waits drawn at random land anywhere inside the blocks.
            assertThat(probe.histogram().percentileMicros(0.5)).isGreaterThan(5_000);
            assertThat(probe.histogram().maxMicros()).isGreaterThan(30_000);
        } finally {
            stop.set(true);
            loop.shutdown();
            assertThat(loop.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        }
    }
}
