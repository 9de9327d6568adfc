package keel.http.execution;

import keel.http.Response;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One request's run of its handler, answered exactly once: by the handler, or by its deadline (or a
 * refusal), whichever comes first. The handler's answer goes to the {@link Inbox} given at creation;
 * a deadline's or a refusal's is its caller's to deliver. The first answer gives back the permits the request holds (the route's
 * limit, its place in the worker pool or under the virtual-thread limit; a pipelined run's place is
 * held by its last request's call, {@link #passPlaceTo}) and goes on; a later one is dropped, so a
 * handler that finishes after its deadline never sends a second response.
 *
 * <p>While the handler's code runs, the call knows its thread: the deadline interrupts it there
 * (a worker, a virtual thread, a blocking connection's thread), never afterwards, when the thread has
 * moved on to other work.
 */
public final class HandlerCall {
    /**
     * Where a handler's answer goes, on the thread that made it: for a nio connection, to its loop in
     * one task; for the blocking transport, to the connection's waiting thread.
     */
    public interface Inbox {
        void answer(HandlerCall call, Response response);
    }

    private static final VarHandle ANSWERED;
    private static final VarHandle RUNNING;
    /** In {@link #running} while the deadline interrupts the handler's thread. */
    private static final Object INTERRUPTING = new Object();

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            ANSWERED = lookup.findVarHandle(HandlerCall.class, "answered", boolean.class);
            RUNNING = lookup.findVarHandle(HandlerCall.class, "running", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Inbox inbox;
    @SuppressWarnings("unused") // through ANSWERED
    private volatile boolean answered;
    /** Permits given back with the answer: at most two (the route's limit, then the pool's). */
    private Runnable firstRelease;
    private Runnable secondRelease;
    /** The deadline the handler runs under, in nanoseconds, or 0 for none ({@link #runsUnder}). */
    private long deadlineNanos;
    /**
     * The thread running the handler's code now, or null, or {@link #INTERRUPTING} while the deadline
     * interrupts it: the thread leaving waits for that to end, so the interrupt never lands on later work.
     */
    private volatile Object running;
    /** The blocking transport's timer, cancelled by the answer; null on the nio transport (the channel's deadline). */
    private CompletableFuture<Void> timer;

    public HandlerCall(Inbox inbox) {
        this.inbox = inbox;
    }

    /** Gives {@code permit} back with the answer (set before the handler can answer). */
    void releasesWithAnswer(Runnable permit) {
        if (firstRelease == null) firstRelease = permit;
        else secondRelease = permit;
    }

    /**
     * Before either call can answer: the permit this call would give back last (its place in the
     * worker pool or under the virtual-thread limit) goes back with {@code next}'s answer instead.
     */
    void passPlaceTo(HandlerCall next) {
        if (secondRelease != null) {
            next.releasesWithAnswer(secondRelease);
            secondRelease = null;
        } else {
            next.releasesWithAnswer(firstRelease);
            firstRelease = null;
        }
    }

    boolean isAnswered() {
        return answered;
    }

    /** The handler's answer: goes to the inbox when it is the first, dropped when the deadline came first. */
    void answer(Response response) {
        if (!settle()) {
            if (response.isStreamed()) DiscardingSubscriber.discard(response.stream());
            return;
        }
        if (timer != null) timer.complete(null); // cancels the timer
        inbox.answer(this, response);
    }

    /**
     * Answers the call without the handler (a refusal before it ran, an answer it made at once on
     * the calling thread): gives the permits back. True when nothing had answered it yet; the caller
     * then delivers the answer itself.
     */
    boolean settle() {
        if (!ANSWERED.compareAndSet(this, false, true)) return false;
        release();
        return true;
    }

    /**
     * The deadline passed: when the handler has not answered yet, runs {@code onExpired} (before the
     * client can see the answer), interrupts the handler's thread (if its code runs now) and gives the
     * permits back. True when it did: the caller then delivers the deadline's answer.
     */
    boolean expire(Runnable onExpired) {
        if (!ANSWERED.compareAndSet(this, false, true)) return false;
        onExpired.run();
        try {
            if (running instanceof Thread thread && thread != Thread.currentThread() && RUNNING.compareAndSet(this, thread, INTERRUPTING)) {
                try {
                    thread.interrupt();
                } finally {
                    running = null; // the thread leaving waits for this
                }
            }
        } finally {
            release();
        }
        return true;
    }

    /** For the blocking transport: {@link #expire} after {@code nanos}, on the JDK's timer thread, with {@code timeout} to the inbox. */
    void expireAfter(long nanos, Response timeout, Runnable onExpired) {
        timer = new CompletableFuture<Void>().orTimeout(nanos, TimeUnit.NANOSECONDS);
        timer.whenComplete((ignored, failure) -> {
            if (failure != null && expire(onExpired)) inbox.answer(this, timeout);
        });
    }

    /**
     * The call has a deadline of {@code nanos} (above 0), which interrupts the handler's thread: set
     * before the handler can run. Without one (a handler on the loop) {@link #enter} and
     * {@link #leave} cost nothing.
     */
    void runsUnder(long nanos) {
        deadlineNanos = nanos;
    }

    /** The deadline {@link #runsUnder} set, or 0. */
    public long deadlineNanos() {
        return deadlineNanos;
    }

    /** On the handler's thread, as its code starts. */
    void enter() {
        if (deadlineNanos == 0) return;
        running = Thread.currentThread();
    }

    /**
     * On the handler's thread, as its code returns. When the deadline has taken the thread to interrupt
     * it, waits until it has (a few instructions, unless the interrupting thread lost its CPU meanwhile:
     * this one then yields its own), then clears the interrupt, so it hits nothing else.
     */
    void leave() {
        if (deadlineNanos == 0) return;
        if (RUNNING.compareAndSet(this, Thread.currentThread(), null)) return;
        while (running == INTERRUPTING) Thread.yield();
        Thread.interrupted();
    }

    private void release() {
        if (firstRelease != null) firstRelease.run();
        if (secondRelease != null) secondRelease.run();
    }
}
