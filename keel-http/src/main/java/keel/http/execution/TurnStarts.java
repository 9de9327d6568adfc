package keel.http.execution;

import keel.core.log.Log;
import keel.core.loop.EventLoop;

import java.util.ArrayList;

/**
 * The virtual threads an event loop makes during one turn, started together as the turn ends: their
 * scheduler is woken once for all of them, and not in the middle of the turn, where its carrier
 * would take the loop's CPU from it before the loop has read the rest of its input.
 */
final class TurnStarts implements Runnable {
    private static final Log LOG = Log.of(TurnStarts.class);
    private static final ThreadLocal<TurnStarts> ON_LOOP = ThreadLocal.withInitial(TurnStarts::new);
    /** Loop thread only; bounded by the virtual-thread limit. */
    private final ArrayList<Thread> threads = new ArrayList<>();
    /** What answers for each thread that cannot start, by its index in {@link #threads}. */
    private final ArrayList<Runnable> failures = new ArrayList<>();

    private TurnStarts() {
    }

    /**
     * Starts {@code thread} at the end of the current loop turn, or at once when not called on a
     * loop; a thread that cannot start then (no memory, a scheduler shut down) runs {@code failed}
     * on the loop instead, so that its request is still answered.
     */
    static void start(Thread thread, Runnable failed) {
        EventLoop loop = EventLoop.current();
        if (loop == null) {
            thread.start();
            return;
        }
        TurnStarts starts = ON_LOOP.get();
        loop.atTurnEnd(starts);
        starts.threads.add(thread);
        starts.failures.add(failed);
    }

    @Override
    public void run() {
        for (int i = 0; i < threads.size(); i++) {
            try {
                threads.get(i).start();
            } catch (Throwable failure) {
                LOG.error("virtual_thread_start_failed", failure);
                failures.get(i).run();
            }
        }
        threads.clear();
        failures.clear();
    }
}
