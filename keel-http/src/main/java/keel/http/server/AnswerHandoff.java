package keel.http.server;

import keel.http.Response;

import java.util.Arrays;

/**
 * The answers made on other threads for one connection, on their way to its loop. The first answer
 * of a burst asks for a loop task; those that come before the loop takes the burst up ride along in
 * it: a pipelined run's answers, made one after another on one thread, reach the loop in one task
 * instead of one each.
 *
 * <p>Bounded by the places its connection reserved for answers (its request and those run ahead of
 * their turn: at most {@code 1 + server.pipeline-run}); the arrays grow to that as pipelining needs.
 * Any thread adds; the connection's loop takes.
 */
final class AnswerHandoff {
    /** What {@link #add} did with an answer. */
    enum Added {
        /** The first of a burst: the caller queues the loop's task, in the answer's reserved place. */
        FIRST,
        /** Behind one not taken yet: it rides along in that one's task, and its reserved place goes back as the loop takes the burst. */
        BEHIND,
        /** The loop refused the task ({@link #close}): the caller drops the answer. */
        REFUSED
    }

    private final int capacity;
    /**
     * Responses and their timings (or null), in pairs: the ones added since the last take; made at the
     * first answer (a connection whose handlers run on its loop has none). Guarded by {@code this}.
     */
    private Object[] adding;
    private int added;
    private boolean closed;
    /** The burst the loop took last, in pairs (the array {@link #adding} goes on in next, once cleared); loop thread only. */
    private Object[] taken;
    private int takenCount;

    /** {@code capacity}: the most answers a burst can hold. */
    AnswerHandoff(int capacity) {
        this.capacity = capacity;
    }

    synchronized Added add(Response response, Exchange.Timing timing) {
        if (closed) return Added.REFUSED;
        if (added == capacity) throw new IllegalStateException("more answers than reserved places (" + capacity + ")");
        if (adding == null) adding = new Object[Math.min(4, 2 * capacity)];
        else if (2 * added == adding.length) adding = Arrays.copyOf(adding, Math.min(2 * adding.length, 2 * capacity));
        adding[2 * added] = response;
        adding[2 * added + 1] = timing;
        return added++ == 0 ? Added.FIRST : Added.BEHIND;
    }

    /**
     * On the loop, in the task of a burst's first answer: takes the burst, whose answers are then
     * {@link #response}({@code i}) and {@link #timing}({@code i}) for {@code i} below the count
     * returned, until the next take. The next answer added starts a new burst.
     */
    int take() {
        Object[] free = taken;
        if (free != null) Arrays.fill(free, 0, 2 * takenCount, null);
        synchronized (this) {
            taken = adding;
            takenCount = added;
            adding = free != null && free.length >= taken.length ? free : null;
            added = 0;
        }
        return takenCount;
    }

    Response response(int i) {
        return (Response) taken[2 * i];
    }

    Exchange.Timing timing(int i) {
        return (Exchange.Timing) taken[2 * i + 1];
    }

    /**
     * The loop refused the burst's task (it has stopped): every later answer is refused too. Returns
     * the answers of the refused burst, to be dropped with it (its first among them).
     */
    synchronized Response[] close() {
        closed = true;
        Response[] refused = new Response[added];
        for (int i = 0; i < added; i++) refused[i] = (Response) adding[2 * i];
        added = 0;
        return refused;
    }
}
