package keel.http.server.nio;

import keel.http.server.exchange.ServerContext;

/**
 * Answers made on one loop by synchronous handlers there (and WebSocket upgrades), while a
 * connection's input is read, that wait for their time. The answers made from one read leave
 * together, in the write that follows it, so they are timed together: with one clock read as the
 * reading ends, or sooner, before any of them could leave (a close, a streamed body, an upgrade) or
 * as another answer is timed on the loop (a 404, a refusal), so that the observer hears of them in
 * the order they were made. For the observer, a request's time then runs until the answers of its
 * read are made, which is when its bytes can leave.
 * <p>
 * Bounded: {@link #hold} refuses past {@value #MOST}, and the caller times the ones held then. Loop
 * thread only (one per loop: a loop reads one connection's input at a time).
 */
final class UntimedAnswers {
    static final int MOST = 64;
    private final String[] methods = new String[MOST];
    private final String[] patterns = new String[MOST];
    private final int[] statuses = new int[MOST];
    private final long[] starts = new long[MOST];
    private int count;

    /** Holds an answer for {@link #report}; false when full. */
    boolean hold(String method, String pattern, int status, long start) {
        if (count == MOST) return false;
        methods[count] = method;
        patterns[count] = pattern;
        statuses[count] = status;
        starts[count] = start;
        count++;
        return true;
    }

    /** Reports the answers held, in the order they were made, as made at {@code nanoTime}, and lets them go. */
    void report(ServerContext context, long nanoTime) {
        int held = count;
        count = 0; // let go first: an observer's Error must not leave them to be reported again
        for (int i = 0; i < held; i++) {
            context.answered(methods[i], patterns[i], statuses[i], nanoTime - starts[i]);
            methods[i] = null;
            patterns[i] = null;
        }
    }

    boolean isEmpty() {
        return count == 0;
    }
}
