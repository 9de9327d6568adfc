package keel.http.server.nio;

import keel.core.log.Log;
import keel.core.net.Channel;
import keel.http.Response;
import keel.http.execution.DiscardingSubscriber;
import keel.http.execution.HandlerCall;
import keel.http.server.exchange.ExchangeObserver;

import java.util.Arrays;
import java.util.concurrent.RejectedExecutionException;

/**
 * The inbox of one nio connection: the answers its handlers make later or on other threads, on
 * their way to its loop. The first answer of a burst queues a loop task, in the place the connection
 * reserved for it; those that come before the loop takes the burst up ride along in it: a pipelined
 * run's answers, made one after another on one thread, reach the loop in one task instead of one each.
 *
 * <p>Bounded by the places its connection reserved for answers (its request and those run ahead of
 * their turn: at most {@code 1 + server.pipeline-run}); the arrays grow to that as pipelining needs.
 * Any thread adds; the connection's loop takes.
 */
final class AnswerHandoff implements HandlerCall.Inbox {
    private static final Log LOG = Log.of(AnswerHandoff.class);

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
    /** The connection's channel, whose loop takes the answers; null in unit tests of the burst alone. */
    private final Channel channel;
    /** The loop task that takes a burst up: the connection's. */
    private final Runnable take;
    private final ExchangeObserver observer;
    /**
     * Responses and their calls, in pairs: the ones added since the last take; made at the
     * first answer (a connection whose handlers run on its loop has none). Guarded by {@code this}.
     */
    private Object[] adding;
    private int added;
    private boolean closed;
    /** The burst the loop took last, in pairs (the array {@link #adding} goes on in next, once cleared); loop thread only. */
    private Object[] taken;
    private int takenCount;

    /**
     * {@code capacity}: the most answers a burst can hold; {@code take}: the loop task that takes a burst
     * up ({@link #take}) and hands its answers on.
     */
    AnswerHandoff(int capacity, Channel channel, Runnable take, ExchangeObserver observer) {
        this.capacity = capacity;
        this.channel = channel;
        this.take = take;
        this.observer = observer;
    }

    /** Any thread: queues the answer for the loop, the first of a burst in a task of its own. */
    @Override
    public void answer(HandlerCall call, Response response) {
        switch (add(response, call)) {
            case FIRST -> {
                try {
                    channel.loop().executeReserved(take);
                } catch (RejectedExecutionException stopped) {
                    // Only a stopped loop refuses a reserved place: it closed its channels, this one included.
                    Response[] refused = close();
                    channel.loop().cancelReservedTasks(refused.length - 1); // the places of those behind the first
                    for (Response dropped : refused) dropStopped(dropped, stopped.getMessage());
                    channel.closeFromAnyThread();
                }
            }
            case BEHIND -> { } // it goes in the task the first one queued; the loop gives its place back as it takes it
            case REFUSED -> dropStopped(response, "event loop stopped");
        }
    }

    private void dropStopped(Response response, String cause) {
        observer.onCut(ExchangeObserver.Cut.LOOP_STOPPED);
        LOG.warn("response_dropped", "channel", channel, "cause", cause);
        if (response.isStreamed()) DiscardingSubscriber.discard(response.stream());
    }

    synchronized Added add(Response response, HandlerCall call) {
        if (closed) return Added.REFUSED;
        if (added == capacity) throw new IllegalStateException("more answers than reserved places (" + capacity + ")");
        if (adding == null) adding = new Object[Math.min(4, 2 * capacity)];
        else if (2 * added == adding.length) adding = Arrays.copyOf(adding, Math.min(2 * adding.length, 2 * capacity));
        adding[2 * added] = response;
        adding[2 * added + 1] = call;
        return added++ == 0 ? Added.FIRST : Added.BEHIND;
    }

    /**
     * On the loop, in the task of a burst's first answer: takes the burst, whose answers are then
     * {@link #response}({@code i}) and {@link #call}({@code i}) for {@code i} below the count
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

    HandlerCall call(int i) {
        return (HandlerCall) taken[2 * i + 1];
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
