package keel.core.loop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A fixed set of {@link EventLoop}s. {@link #next()} hands out loops in turn; a connection given a
 * loop keeps it for life, so its state needs no locks.
 */
public final class LoopGroup implements AutoCloseable {
    private final List<EventLoop> loops;
    private final AtomicInteger turn = new AtomicInteger();

    /** Starts {@code count} loops named {@code prefix-0 … prefix-(count-1)}, with the default turn budget. */
    public LoopGroup(int count, String prefix) {
        this(count, prefix, EventLoop.DEFAULT_TURN_BUDGET);
    }

    /** Starts {@code count} loops named {@code prefix-0 … prefix-(count-1)}; see {@link EventLoop.Options#turnBudget}. */
    public LoopGroup(int count, String prefix, Duration turnBudget) {
        this(count, prefix, turnBudget, EventLoop.Options.named(prefix).taskQueueSize());
    }

    /** Starts {@code count} loops named {@code prefix-0 … prefix-(count-1)}; see {@link EventLoop.Options}. */
    public LoopGroup(int count, String prefix, Duration turnBudget, int taskQueueSize) {
        if (count < 1) throw new IllegalArgumentException("a loop group needs at least one loop: " + count);
        List<EventLoop> created = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            EventLoop loop = new EventLoop(EventLoop.Options.named(prefix + "-" + i).withTurnBudget(turnBudget).withTaskQueueSize(taskQueueSize));
            loop.start();
            created.add(loop);
        }
        this.loops = List.copyOf(created);
    }

    public static int defaultSize() {
        return Runtime.getRuntime().availableProcessors();
    }

    public EventLoop next() {
        return loops.get(Math.floorMod(turn.getAndIncrement(), loops.size()));
    }

    public List<EventLoop> loops() {
        return loops;
    }

    public int size() {
        return loops.size();
    }

    /**
     * Runs {@code action} once on each of {@code loops}, on the loop's own thread, and waits for all
     * of them, at most {@code timeout}; not from a loop thread. A loop that is stopping and refuses
     * the task counts as done (its channels close with it). True when every loop answered in time.
     */
    public static boolean runOnEach(Collection<EventLoop> loops, Consumer<EventLoop> action, Duration timeout) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(loops.size());
        for (EventLoop loop : loops) {
            try {
                loop.execute(() -> {
                    try {
                        action.accept(loop);
                    } finally {
                        done.countDown();
                    }
                });
            } catch (RejectedExecutionException stopping) {
                done.countDown();
            }
        }
        return done.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Stops every loop and waits for them to end, at most {@code timeout}. */
    public boolean shutdown(long timeout, TimeUnit unit) throws InterruptedException {
        loops.forEach(EventLoop::shutdown);
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        boolean all = true;
        for (EventLoop loop : loops) {
            all &= loop.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        return all;
    }

    @Override
    public void close() throws InterruptedException {
        shutdown(10, TimeUnit.SECONDS);
    }
}
