package keel.http.execution;

import keel.core.log.Log;
import keel.http.Execution;

import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * The handler runs of one connection's requests off the event loop, one after another on one thread
 * (a worker, or a virtual thread). A run starts with one request; before it is handed to its thread,
 * the connection {@link #append appends} the pipelined requests it has already read behind that one,
 * so a batch of them costs one hop to the thread and, when they are quick, one back
 * (the protocol's hand-off): their answers reach the loop in order, in one task, and leave in one write.
 * The connection bounds how many it appends (its pipeline depth).
 *
 * <p>The run holds one place under its execution's limit (the worker pool's, or the virtual threads'),
 * taken for its first request: it runs on one thread, whatever its length. The place goes back with
 * the answer of its last request (the one appended last holds it), so a client that has read every
 * answer of the batch never finds the run still holding it.
 *
 * <p>Every step is appended on the connection's loop before the run goes to its thread, and the run
 * takes no more after that: the hand-over (a thread's start, a worker's queue) publishes them, and
 * the run needs no lock.
 */
public final class PipelineRun implements Runnable {
    private static final Log LOG = Log.of(PipelineRun.class);
    private final Execution execution;
    private final Launch launch;
    /** What answers each request of a run that could not start (503). */
    private final Consumer<HandlerCall> refusal;

    /** How a run goes to its thread. */
    interface Launch {
        /** Hands {@code run} to its thread, now or as the loop's turn ends; {@code failed} runs when it cannot start. */
        void start(Runnable run, Runnable failed);
    }

    /** One request's handler run, which skips the handler when its call was answered before its turn (its deadline passed). */
    interface Step extends Runnable {
        HandlerCall call();
    }

    /** Steps not run yet. */
    private final ArrayDeque<Step> steps = new ArrayDeque<>(4);

    /**
     * {@code first}'s call holds the run's place under its execution's limit; {@code launch} hands
     * the run to its thread at {@link #start}; {@code refusal} answers its calls when it cannot start.
     */
    PipelineRun(Execution execution, Step first, Launch launch, Consumer<HandlerCall> refusal) {
        this.execution = execution;
        this.launch = launch;
        this.refusal = refusal;
        steps.add(first);
    }

    /** Where the run's steps execute. */
    public Execution execution() {
        return execution;
    }

    /** On the loop, before the run goes to its thread: queues {@code step} behind the others, its call now holding the run's place. */
    void append(Step step) {
        steps.getLast().call().passPlaceTo(step.call());
        steps.add(step);
    }

    /** On the loop, once the requests behind the first have joined: hands the run to its thread. */
    public void start() {
        launch.start(this, this::refuse);
    }

    /** For a run that could not start: answers each call not answered yet with the refusal, in order. */
    private void refuse() {
        Step step;
        while ((step = steps.poll()) != null) {
            if (!step.call().isAnswered()) refusal.accept(step.call());
        }
    }

    @Override
    public void run() {
        Step step;
        while ((step = steps.poll()) != null) {
            try {
                step.run();
            } catch (Throwable failure) {
                // A step answers its own failures; one that escapes must not strand the steps behind it.
                LOG.error("pipeline_step_failed", failure);
            }
        }
    }
}
