package keel.http.server;

import keel.core.log.Log;

import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * The handler runs of one connection's requests off the event loop, one after another on one thread
 * (a worker, or a virtual thread). A run starts with one request; before it starts, the connection
 * {@link #tryAppend appends} the pipelined requests it has already read behind that one, so a batch
 * of them costs one hop to the thread and, when they are quick, one back ({@link AnswerHandoff}):
 * their answers reach the loop in order, in one task, and leave in one write. The connection bounds
 * how many it appends (its pipeline depth). Once the run has found nothing left it is over and takes
 * no more.
 */
final class PipelineRun implements Runnable {
    private static final Log LOG = Log.of(PipelineRun.class);
    private final Execution execution;
    /** One request's handler run, which skips the handler when its call was answered before its turn (its deadline passed). */
    interface Step extends Runnable {
        HandlerCall call();
    }

    /** Steps not run yet; guarded by {@code this}. */
    private final ArrayDeque<Step> steps = new ArrayDeque<>(4);
    /** Guarded by {@code this}. */
    private boolean over;

    PipelineRun(Execution execution, Step first) {
        this.execution = execution;
        steps.add(first);
    }

    /** Where the run's steps execute. */
    Execution execution() {
        return execution;
    }

    /** Queues {@code step} behind the ones of this run; false once the run is over. */
    synchronized boolean tryAppend(Step step) {
        if (over) return false;
        steps.add(step);
        return true;
    }

    /** For a run that could not start: ends it, and hands each call not answered yet to {@code refusal}, in order. */
    void refuse(Consumer<HandlerCall> refusal) {
        Step step;
        while ((step = next()) != null) {
            if (!step.call().isAnswered()) refusal.accept(step.call());
        }
    }

    private synchronized Step next() {
        Step step = steps.poll();
        if (step == null) over = true;
        return step;
    }

    @Override
    public void run() {
        Step step;
        while ((step = next()) != null) {
            try {
                step.run();
            } catch (Throwable failure) {
                // A step answers its own failures; one that escapes must not strand the steps behind it.
                LOG.error("pipeline_step_failed", failure);
            }
        }
    }
}
