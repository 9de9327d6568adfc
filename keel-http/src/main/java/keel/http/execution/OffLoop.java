package keel.http.execution;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The places handlers run off the event loop, each bounded, each refusing at once when full: the
 * worker pool, under admission permits, and virtual threads, under their concurrency limit. A refusal
 * is a false, never an exception: an overloaded server would pay for one on every request it sheds.
 */
public final class OffLoop implements AutoCloseable {
    private final WorkerPool workers;
    /**
     * Admission to the worker pool: one permit per thread plus one per queue slot, held from the
     * request's admission until its answer goes to the loop (or, for an async handler, until its
     * thread is done). The pool's queue so never holds more than threads + queue tasks.
     */
    private final Semaphore workerPermits;
    private final Semaphore virtualPermits;
    private final int virtualThreadLimit;
    /** Gives back a place {@link #tryAdmitVirtualThread} took; made once: a method reference made per request would allocate on every request. */
    final Runnable releaseVirtualPermit;
    /** One name for all: a numbered name would cost a string and a shared counter's atomic update per thread (its id tells them apart). */
    private final ThreadFactory virtualThreads;
    /** The same, never on a loop: for routes the guard moved off their loop. */
    private final ThreadFactory virtualThreadsOffLoops;

    /**
     * A pool of {@code workerThreads} taking at most {@code workerQueue} tasks more; {@code startWorkers}:
     * some route runs on the pool. Threads started on first use would start on the event loop that
     * hands them work, stalling it, so they all start now, before the port opens. At most
     * {@code virtualThreadLimit} virtual threads at once, from {@code virtualThreads}, and from
     * {@code virtualThreadsOffLoops} for the routes the guard moved off their loop (the same factory
     * unless the loops carry virtual threads).
     */
    public OffLoop(int workerThreads, int workerQueue, boolean startWorkers, int virtualThreadLimit,
                   ThreadFactory virtualThreads, ThreadFactory virtualThreadsOffLoops) {
        this.workerPermits = new Semaphore(workerThreads + workerQueue);
        this.workers = new WorkerPool("keel-worker-", workerThreads);
        if (startWorkers) workers.start();
        this.virtualThreadLimit = virtualThreadLimit;
        this.virtualPermits = new Semaphore(virtualThreadLimit);
        this.virtualThreadsOffLoops = virtualThreadsOffLoops;
        this.virtualThreads = virtualThreads;
        this.releaseVirtualPermit = virtualPermits::release;
    }

    /** Takes a place under the virtual-thread limit; false when none is left. */
    boolean tryAdmitVirtualThread() {
        return virtualPermits.tryAcquire();
    }

    /**
     * Takes an admission permit to the pool: returns what gives it back (at most once, however often
     * it runs), or null when none is left.
     */
    Runnable tryAdmitWorker() {
        if (!workerPermits.tryAcquire()) return null;
        AtomicBoolean released = new AtomicBoolean();
        return () -> {
            if (released.compareAndSet(false, true)) workerPermits.release();
        };
    }

    /**
     * Runs {@code work} on the pool under the permit {@code release} gives back (once the task ends, if
     * nothing gave it back before). Throws {@link RejectedExecutionException}, with the permit given
     * back, once the pool is shut down.
     */
    void executeOnWorker(Runnable work, Runnable release) {
        try {
            workers.execute(() -> {
                try {
                    work.run();
                } finally {
                    release.run();
                }
            });
        } catch (RejectedExecutionException stopped) {
            release.run();
            throw stopped;
        }
    }

    /**
     * A virtual thread, not started, for a task that holds a place {@link #tryAdmitVirtualThread} took;
     * {@code offLoops}: for a route the guard moved off its loop, which the loop must not carry again.
     */
    Thread newVirtualThread(Runnable task, boolean offLoops) {
        return (offLoops ? virtualThreadsOffLoops : virtualThreads).newThread(task);
    }

    /** Runs {@code task} on a virtual thread of its own under a place of the limit; throws {@link RejectedExecutionException} when none is left. */
    void runOnVirtualThread(Runnable task) {
        if (!virtualPermits.tryAcquire()) throw new RejectedExecutionException("virtual-thread concurrency limit reached");
        virtualThreads.newThread(() -> {
            try {
                task.run();
            } finally {
                virtualPermits.release();
            }
        }).start();
    }

    boolean isShutdown() {
        return workers.isShutdown();
    }

    public int virtualThreadsInFlight() {
        return virtualThreadLimit - virtualPermits.availablePermits();
    }

    public int workerActive() {
        return workers.active();
    }

    public int workerQueued() {
        return workers.queued();
    }

    @Override
    public void close() {
        workers.shutdown();
    }
}
