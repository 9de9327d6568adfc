package keel.http.execution.carriers;

import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.core.net.NativeCalls;
import keel.http.VirtualScheduler;
import keel.http.execution.WorkerPool;

import java.lang.reflect.Constructor;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keel's scheduler for its virtual threads: carrier threads of a {@link WorkerPool}, one pool for the
 * whole JVM (as the JDK's scheduler is), in place of the JDK's {@link java.util.concurrent.ForkJoinPool}.
 *
 * <p>Why: a {@code ForkJoinPool} carrier with nothing left to run spins (some 256 {@link
 * Thread#onSpinWait} rounds over its queues) before it parks, once per burst of work an event loop
 * hands it, and wakes the next carrier as it takes each task. On a server's CPU that spin and those
 * wake-ups are taken from the loop: a virtual thread's request costs less CPU on these carriers
 * than on the JDK's scheduler, in runs of bench/throughput.sh (bench/RESULTS.md has them). The
 * pool wakes carriers as {@link WorkerPool} does: once per loop turn for the threads the turn started.
 *
 * <p>Carriers: {@code jdk.virtualThreadScheduler.parallelism} (default: the available processors)
 * making progress, growing up to {@code jdk.virtualThreadScheduler.maxPoolSize} (default 256) while
 * some are stuck, as when a virtual thread pins its carrier in a native call or a file read (the
 * JDK's own knobs, which mean the same for its scheduler). The queue holds at most one task per live
 * virtual thread of this scheduler (a thread is queued only when it can run, once), and virtual
 * threads are bounded by their executions' limits.
 *
 * <p>{@link #onLoops} gives threads carried by the loop that starts them instead
 * ({@link VirtualScheduler#LOOP}): no carrier to wake, no hand-over to another thread.
 *
 * <p>The JDK lets a virtual thread's scheduler be chosen only through a constructor of its own
 * ({@code java.lang.ThreadBuilders$VirtualThreadBuilder(Executor)}), reached when the JVM opens
 * {@code java.base/java.lang} to Keel ({@code bin/keel} does when {@code virtual-threads.scheduler}
 * asks for {@code keel} or {@code loop}); elsewhere the JDK's scheduler is used, said once in the log.
 * This package alone reaches into the JDK's internals, and only for a server that chose these
 * schedulers: with the default ({@link VirtualScheduler#JDK}) nothing here is loaded.
 */
public final class VirtualCarriers {
    private static final Log LOG = Log.of(VirtualCarriers.class);
    private static final AtomicBoolean FALLBACK_SAID = new AtomicBoolean();
    /** The builder's constructor, or null (with {@link #UNAVAILABLE} saying why). */
    private static final Constructor<?> BUILDER;
    private static final String UNAVAILABLE;
    private static WorkerPool carriers;

    static {
        Constructor<?> builder = null;
        String why = null;
        try {
            builder = Class.forName("java.lang.ThreadBuilders$VirtualThreadBuilder").getDeclaredConstructor(Executor.class);
            builder.setAccessible(true);
        } catch (ReflectiveOperationException | RuntimeException closed) {
            builder = null;
            why = "the JVM does not open java.base/java.lang to " + NativeCalls.name(VirtualCarriers.class.getModule())
                    + " (--add-opens): " + closed.getMessage();
        }
        BUILDER = builder;
        UNAVAILABLE = why;
    }

    private VirtualCarriers() {
    }

    /** Virtual threads named {@code name} on Keel's carriers, or on the JDK's scheduler when the JVM does not allow it. */
    public static ThreadFactory factory(String name) {
        return BUILDER == null ? onJdkScheduler(name, UNAVAILABLE) : factory(name, carriers()::execute);
    }

    /**
     * Virtual threads named {@code name}, each carried by the event loop that starts it
     * ({@link VirtualScheduler#LOOP}): its continuations are tasks of that loop. Started off any loop,
     * a thread comes from {@code elsewhere} (a {@link #factory}'s); a continuation the loop refuses
     * (its task queue full, or the loop stopped) goes to Keel's carriers, so that none is lost.
     * Threads that such a thread starts share its loop.
     */
    public static ThreadFactory onLoops(String name, ThreadFactory elsewhere) {
        if (BUILDER == null) return elsewhere; // the JDK's scheduler, said once already
        ThreadLocal<ThreadFactory> perLoop = ThreadLocal.withInitial(() -> factory(name, onLoop(EventLoop.current())));
        return task -> (EventLoop.current() != null ? perLoop.get() : elsewhere).newThread(task);
    }

    /**
     * What a loop is running while it carries a virtual thread, for the guard's report: no route (the
     * thread's route is not known here), so that a stall it causes moves no event-loop route off the loop.
     */
    static final String CARRYING = "a virtual thread";

    private static Executor onLoop(EventLoop loop) {
        return continuation -> {
            try {
                loop.execute(() -> {
                    loop.markActivity(CARRYING);
                    try {
                        continuation.run();
                    } finally {
                        loop.markActivity(null);
                    }
                });
            } catch (RejectedExecutionException refused) {
                carriers().execute(continuation);
            }
        };
    }

    private static ThreadFactory factory(String name, Executor scheduler) {
        try {
            return ((Thread.Builder.OfVirtual) BUILDER.newInstance(scheduler)).name(name).factory();
        } catch (ReflectiveOperationException | RuntimeException refused) {
            return onJdkScheduler(name, refused.toString());
        }
    }

    private static ThreadFactory onJdkScheduler(String name, String why) {
        if (FALLBACK_SAID.compareAndSet(false, true)) LOG.info("virtual_threads_on_jdk_scheduler", "reason", why);
        return Thread.ofVirtual().name(name).factory();
    }

    /** True when {@link #factory} gives threads on Keel's carriers. */
    public static boolean available() {
        return BUILDER != null;
    }

    /** The JVM's carriers, started on first use (off any loop: a server builds its executions before it opens its port). */
    private static synchronized WorkerPool carriers() {
        if (carriers == null) {
            int parallelism = property("jdk.virtualThreadScheduler.parallelism", Runtime.getRuntime().availableProcessors());
            int max = property("jdk.virtualThreadScheduler.maxPoolSize", Math.max(parallelism, 256));
            carriers = new WorkerPool("keel-carrier-", parallelism, Math.max(parallelism, max));
            carriers.start();
        }
        return carriers;
    }

    private static int property(String name, int fallback) {
        String value = System.getProperty(name);
        if (value == null) return fallback;
        try {
            int parsed = Integer.parseInt(value.trim());
            if (parsed >= 1 && parsed <= 32_767) return parsed;
        } catch (NumberFormatException ignored) {
            // said below
        }
        LOG.warn("virtual_thread_carriers_property_ignored", "property", name, "value", value, "using", fallback);
        return fallback;
    }
}
