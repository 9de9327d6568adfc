package keel.http.execution;

import keel.core.log.Log;
import keel.core.loop.EventLoop;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Platform threads taking tasks from one queue, which wakes as few of them as it can without letting a
 * task wait while a thread is idle.
 *
 * <p>Idle threads park, each on its own, in a stack (the one idle last is woken first, its caches
 * warm). A task queued while no thread is {@linkplain #searchers searching} (awake and about to look
 * at the queue) wakes one idle thread; tasks queued while one is searching wake none, and a loop
 * wakes the pool once at the end of its turn: a burst of a turn costs one wake-up, not one per task.
 * A busy thread takes the next task itself when it is done with one. So that a handler that blocks
 * its thread does not hold up the tasks behind it, a watch thread looks at the queue every
 * {@link #TICK_NANOS} while tasks come: a task first in the queue for a whole tick wakes every idle
 * thread the queue can use. While tasks come and are taken at once (the queue empty at each tick),
 * it looks less and less often, down to once every {@link #LONGEST_TICK_NANOS}, and every tick again
 * once it finds one queued. The watch sleeps only after {@link #QUIET_TICKS} ticks without a task,
 * so a steady stream of tasks never has to wake it. (Waking the next thread as each task is taken, as
 * {@link java.util.concurrent.ForkJoinPool}'s workers do, cost a wake-up and a context switch per
 * task on one CPU: the woken thread preempts the one that woke it.)
 *
 * <p>A pool may grow past its core threads, up to its maximum: when a task has waited a whole tick,
 * no thread is idle, and threads are stuck (on one task for some milliseconds in which they used
 * less than a quarter of them on a CPU: waiting, not working), the watch starts threads until the
 * core count of threads make progress again. Calls that hold a thread while they wait (a virtual
 * thread pinned to its carrier) so do not starve the tasks behind them while the pool may grow; a
 * thread busy computing is not stuck, as more threads would only share the same CPUs. The pool does
 * not shrink. A pool whose core is its maximum starts all its threads at once and never grows.
 *
 * <p>Bounded by its caller: the dispatcher admits at most threads + queue tasks (its permits), so the
 * queue never holds more. {@link #shutdown} refuses new tasks; the queued ones still run.
 */
public final class WorkerPool {
    private static final Log LOG = Log.of(WorkerPool.class);
    private static final long INDEX = 0xFFFF_FFFFL;
    /** How often the watch looks for a task waiting behind busy threads while an idle one could take it. */
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * The longest tick, reached while tasks come and are taken at once: each tick costs the watch's
     * wake-up, two context switches on the CPU of the threads it watches (some 1 % of a busy loop's
     * CPU at one a millisecond); a task that then waits is seen within two of these.
     */
    private static final long LONGEST_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(8);
    /**
     * Ticks without a task before the watch sleeps until one comes. Waking it costs a context switch
     * on one CPU; tasks a few milliseconds apart would pay one each, where ticking through the gaps
     * costs a timer's wake-up a millisecond, for this long after the last task.
     */
    private static final int QUIET_TICKS = 64;
    /** How long a thread must wait on one task, using little CPU, to count as stuck (a pool that may grow). */
    private static final long STUCK_NANOS = TimeUnit.MILLISECONDS.toNanos(4);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Slots up to the maximum; the first {@link #threadCount} hold started threads. */
    private final Worker[] workers;
    private final String prefix;
    private final int coreThreads;
    /** Threads started; grows only on the watch's thread (or in {@link #start}). */
    private volatile int threadCount;
    /**
     * What each thread ran at the watch's last tick, and its CPU time when the watch first found it
     * on that task a second time (-1: not read yet), with when: to tell stuck threads. The watch's own.
     */
    private final Runnable[] seen;
    private final long[] seenCpu;
    private final long[] seenCpuAt;
    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    /** The idle stack: low 32 bits the top's index + 1 (0: empty), high 32 bits a stamp against ABA. */
    private final AtomicLong idle = new AtomicLong();
    /** Threads woken (or waking) that have not taken a task yet. */
    private final AtomicInteger searchers = new AtomicInteger();
    /** The wake-up a loop's turn owes the pool for the tasks it queued (one object: a turn takes it once). */
    private final Runnable turnSignal = this::signalWork;
    private final Thread watch;
    /** True while the watch sleeps until work comes (not on a tick); guarded by its CAS. */
    private final AtomicBoolean watchAsleep = new AtomicBoolean();
    /** A task was queued since the watch's last tick (written once a tick, not once a task). */
    private volatile boolean queuedSinceTick;
    private volatile boolean started;
    private volatile boolean shutdown;

    private final class Worker implements Runnable {
        final int index;
        final Thread thread;
        /** The next idle thread's index + 1 below this one on the stack; written before the push. */
        int below;
        /** Set by the thread that wakes this one. */
        volatile boolean woken;
        /** The task this thread runs now; null while it has none. */
        volatile Runnable current;

        Worker(int index, String name) {
            this.index = index;
            this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this);
        }

        @Override
        public void run() {
            boolean searching = false;
            while (true) {
                Runnable task = queue.poll();
                if (searching) searchers.decrementAndGet();
                searching = false;
                if (task != null) {
                    runTask(task);
                } else if (awaitWork()) {
                    searching = true; // whoever woke this thread counted it as searching
                } else {
                    return;
                }
            }
        }

        /** Parks on the idle stack until woken; false once the pool is shut down and drained. */
        private boolean awaitWork() {
            if (shutdown) return false;
            pushIdle(this);
            // A task queued before this thread was on the stack saw no one to wake: look once more.
            if (!queue.isEmpty()) signalWork();
            while (!woken) {
                if (shutdown && queue.isEmpty()) return false;
                LockSupport.park(this);
            }
            woken = false;
            return true;
        }

        private void runTask(Runnable task) {
            current = task;
            try {
                task.run();
            } catch (Throwable failure) {
                LOG.error("worker_task_failed", failure);
            } finally {
                current = null;
                Thread.interrupted(); // an interrupt meant for that task must not reach the next
            }
        }
    }

    /** A pool of {@code threads} threads, all started at once, that never grows. */
    WorkerPool(String prefix, int threads) {
        this(prefix, threads, threads);
    }

    /** A pool that starts {@code coreThreads} and grows up to {@code maxThreads} while threads are stuck. */
    public WorkerPool(String prefix, int coreThreads, int maxThreads) {
        if (coreThreads < 1 || maxThreads < coreThreads) throw new IllegalArgumentException("threads: 1 <= core <= max");
        this.prefix = prefix;
        this.coreThreads = coreThreads;
        this.workers = new Worker[maxThreads];
        this.seen = new Runnable[maxThreads];
        this.seenCpu = new long[maxThreads];
        this.seenCpuAt = new long[maxThreads];
        for (int i = 0; i < coreThreads; i++) workers[i] = new Worker(i, prefix + i);
        watch = Thread.ofPlatform().name(prefix + "watch").daemon(true).unstarted(this::watch);
    }

    /**
     * Every {@link #TICK_NANOS} while tasks come: a task that was first in the queue at the last
     * tick and still is waits behind busy threads (a blocked handler, or many slow ones); every idle
     * thread the queue can use is woken for it, and when none is left a pool that may grow starts
     * threads for the stuck ones. A tick that finds the queue empty though tasks came since the last
     * one doubles the next, up to {@link #LONGEST_TICK_NANOS}; one that finds a task queued (a backlog
     * is looked at every {@link #TICK_NANOS}), or no task since the last, brings it back. Sleeps
     * after {@link #QUIET_TICKS} ticks in which no task came, until one does.
     */
    private void watch() {
        Runnable lastHead = null;
        int quietTicks = 0;
        long tick = TICK_NANOS;
        while (!shutdown) {
            Runnable head = queue.peek();
            int stuck = stuckThreads();
            if (head != null && head == lastHead) {
                int waiting = queue.size();
                while (waiting > 0 && wake()) waiting--;
                if (waiting > 0) grow(stuck);
            }
            lastHead = head;
            tick = head == null && queuedSinceTick ? Math.min(2 * tick, LONGEST_TICK_NANOS) : TICK_NANOS;
            if (head != null || queuedSinceTick) {
                queuedSinceTick = false;
                quietTicks = 0;
            } else if (++quietTicks >= QUIET_TICKS) {
                quietTicks = 0;
                watchAsleep.set(true);
                if (queue.isEmpty() && !shutdown) LockSupport.park(this);
                watchAsleep.set(false);
                continue;
            }
            LockSupport.parkNanos(this, tick);
        }
    }

    /**
     * Threads that have been on one task for {@link #STUCK_NANOS} or more and used less than a quarter
     * of that time on a CPU: waiting, not working (0 for a pool that cannot grow: it need not look). A
     * thread's CPU time is read only once it has stayed on one task for a tick, and judged over the
     * window, not one tick: a working thread another took the CPU from for a tick is not stuck.
     */
    private int stuckThreads() {
        if (coreThreads == workers.length) return 0;
        long now = System.nanoTime();
        int stuck = 0;
        for (int i = 0, n = threadCount; i < n; i++) {
            Runnable task = workers[i].current;
            if (task == null || task != seen[i]) {
                seen[i] = task;
                seenCpu[i] = -1;
            } else if (seenCpu[i] < 0) {
                seenCpu[i] = cpuTime(workers[i].thread);
                seenCpuAt[i] = now;
            } else if (now - seenCpuAt[i] >= STUCK_NANOS && cpuTime(workers[i].thread) - seenCpu[i] < (now - seenCpuAt[i]) / 4) {
                stuck++;
            }
        }
        return stuck;
    }

    /** The thread's CPU time in nanoseconds; 0 where the JVM cannot tell (every thread on one task then counts as waiting). */
    private static long cpuTime(Thread thread) {
        if (!THREADS.isThreadCpuTimeSupported()) return 0;
        return Math.max(0, THREADS.getThreadCpuTime(thread.threadId()));
    }

    /** Starts threads until {@link #coreThreads} of them are not stuck, within the maximum; the watch's thread only. */
    private void grow(int stuck) {
        int before = threadCount;
        while (threadCount - stuck < coreThreads && threadCount < workers.length && !shutdown) {
            int index = threadCount;
            Worker worker = new Worker(index, prefix + index);
            workers[index] = worker;
            threadCount = index + 1;
            worker.thread.start(); // it looks at the queue first
        }
        if (threadCount > before) LOG.info("worker_pool_grew", "pool", prefix, "threads", threadCount, "stuck", stuck);
    }

    /** Starts the core threads now (a thread started on first use would start on the event loop that hands it work). */
    public void start() {
        synchronized (this) {
            if (started) return;
            started = true;
        }
        for (int i = 0; i < coreThreads; i++) workers[i].thread.start();
        threadCount = coreThreads;
        watch.start();
    }

    /** Queues {@code task}; any thread. Throws {@link RejectedExecutionException} once shut down. */
    public void execute(Runnable task) {
        if (!started) start();
        if (shutdown) throw new RejectedExecutionException("worker pool is shut down");
        queue.offer(task);
        if (shutdown && queue.remove(task)) throw new RejectedExecutionException("worker pool is shut down");
        if (!queuedSinceTick) queuedSinceTick = true;
        if (watchAsleep.get() && watchAsleep.compareAndSet(true, false)) LockSupport.unpark(watch);
        EventLoop loop = EventLoop.current();
        if (loop == null || loop.isStopping()) { // a stopping loop's turn may never end
            signalWork();
            return;
        }
        loop.atTurnEnd(turnSignal); // on a loop: one wake-up when its turn is over, for every task the turn hands over
    }

    /** A task is queued: wakes an idle thread unless one is searching already (or none is idle). */
    private void signalWork() {
        if (searchers.get() == 0) wake();
    }

    /** Wakes an idle thread, counted as searching; false when none is idle. */
    private boolean wake() {
        Worker worker = popIdle();
        if (worker == null) return false; // every thread is busy: the first one done takes the task
        searchers.incrementAndGet();
        worker.woken = true;
        LockSupport.unpark(worker.thread);
        return true;
    }

    private void pushIdle(Worker worker) {
        long top;
        do {
            top = idle.get();
            worker.below = (int) (top & INDEX);
        } while (!idle.compareAndSet(top, ((top >>> 32) + 1) << 32 | (worker.index + 1)));
    }

    private Worker popIdle() {
        long top;
        Worker worker;
        do {
            top = idle.get();
            int index = (int) (top & INDEX);
            if (index == 0) return null;
            worker = workers[index - 1];
        } while (!idle.compareAndSet(top, ((top >>> 32) + 1) << 32 | worker.below));
        return worker;
    }

    /** Threads running a task now (a gauge). */
    int active() {
        int active = 0;
        for (int i = 0, n = threadCount; i < n; i++) {
            if (workers[i].current != null) active++;
        }
        return active;
    }

    /** Threads started so far (the core ones, and those the pool grew by). */
    int threads() {
        return threadCount;
    }

    /** Tasks waiting for a thread (a gauge; counts the queue). */
    int queued() {
        return queue.size();
    }

    /** True while the watch sleeps until a task comes (after its quiet ticks); for tests. */
    boolean watchAsleep() {
        return watchAsleep.get();
    }

    boolean isShutdown() {
        return shutdown;
    }

    /** Refuses new tasks; the queued ones still run, then the threads end. */
    void shutdown() {
        shutdown = true;
        for (int i = 0, n = threadCount; i < n; i++) LockSupport.unpark(workers[i].thread);
        LockSupport.unpark(watch);
    }
}
