package keel.core.loop;

import keel.core.log.Log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectableChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * One platform thread, one {@link Poller}, one bounded task queue and one set of timers.
 *
 * <p>The loop, once per turn: poll the ready channels (without waiting when tasks are pending,
 * otherwise until the next timer is due) unless some from the last poll are still
 * waiting; handle ready channels within the turn budget; fire expired timers; run queued tasks within
 * the turn budget again; fire expired timers again. So however much input or however many tasks
 * arrive, a due timer (the lag probe, a timeout) waits at most about one budget plus the one handler
 * or task that overran it, and a ready channel is never skipped: the channels of one poll (a
 * round, see {@link #rounds}) are all handled, in order, before the loop polls again. Channels
 * registered here are confined to the loop thread: other threads reach them only through
 * {@link #execute(Runnable)}.
 *
 * <p>Thread contract: {@link #execute}, {@link #inEventLoop}, {@link #shutdown} and the gauges may be
 * called from any thread; {@link #register} and {@link #schedule} only from the loop thread.
 */
public final class EventLoop implements Executor {
    private static final Log LOG = Log.of(EventLoop.class);
    /** The default turn budget: long enough to amortise a poll, short enough to keep timers within a few milliseconds. */
    public static final Duration DEFAULT_TURN_BUDGET = Duration.ofMillis(1);
    /** The loop whose thread is running, so code can tell it must not block and can use the loop's timers. */
    private static final ThreadLocal<EventLoop> CURRENT = new ThreadLocal<>();

    private final Options options;
    private final long budgetNanos;
    private final Poller poller;
    private final TaskQueue tasks;
    private final Timers timers;
    private final LongSupplier clock;
    /** The clock as the loop itself read it last (loop thread only). */
    private long lastRead;
    private final Thread thread;
    private final CountDownLatch terminated = new CountDownLatch(1);
    /**
     * True while the loop is about to block (or blocks) in a poll. A producer that queues a
     * task flips it back to false and wakes the poller; whoever flips it wakes, so a busy loop is
     * never woken (a wakeup costs a system call) and a sleeping one is never missed: the loop sets
     * the flag before it checks the queue a last time.
     */
    private final AtomicBoolean wakeupNeeded = new AtomicBoolean();
    /**
     * Channels of the last poll not handled yet. Bounded: a poll hands each registration over at
     * most once, and the loop polls again only once this is empty.
     */
    private final ArrayDeque<Poller.Registration> ready = new ArrayDeque<>();
    /** Made once: a method reference evaluated on every poll would allocate on every turn. */
    private final Consumer<Poller.Registration> addReady = ready::add;
    /** Run as the current turn ends (loop thread only); a hook is in it at most once, which bounds it by its callers. */
    private final ArrayList<Runnable> turnEnds = new ArrayList<>();
    private volatile boolean running = true;
    /** Guard hooks, read by the watchdog thread; written with release stores (no fence on the loop's path). */
    private final AtomicLong rounds = new AtomicLong();
    private final AtomicBoolean waiting = new AtomicBoolean();
    private final AtomicReference<Object> activity = new AtomicReference<>();
    /** The last label set in the current round; cleared as a round starts. */
    private final AtomicReference<Object> roundActivity = new AtomicReference<>();

    /**
     * Options of one loop.
     *
     * @param name             thread name
     * @param taskQueueSize    bound of the task queue; {@link #execute} past it throws
     * @param turnBudget       how long one turn may spend on ready channels, and again on queued
     *                         tasks, before it fires due timers and polls again
     * @param maxTimers        bound of live timers
     * @param poller           what the loop waits on: {@link SelectorPoller} (the JDK's selector) by default
     */
    public record Options(String name, int taskQueueSize, Duration turnBudget, int maxTimers, Poller.Factory poller) {
        public Options {
            if (taskQueueSize < 1) throw new IllegalArgumentException("taskQueueSize must be >= 1");
            if (turnBudget.compareTo(Duration.ofNanos(1_000)) < 0) throw new IllegalArgumentException("turnBudget must be >= 1 µs");
            if (maxTimers < 1) throw new IllegalArgumentException("maxTimers must be >= 1");
            java.util.Objects.requireNonNull(poller, "poller");
        }

        public static Options named(String name) {
            return new Options(name, 65_536, DEFAULT_TURN_BUDGET, 1 << 20, SelectorPoller::open);
        }

        public Options withTurnBudget(Duration budget) {
            return new Options(name, taskQueueSize, budget, maxTimers, poller);
        }

        public Options withTaskQueueSize(int size) {
            return new Options(name, size, turnBudget, maxTimers, poller);
        }

        public Options withPoller(Poller.Factory factory) {
            return new Options(name, taskQueueSize, turnBudget, maxTimers, factory);
        }
    }

    public EventLoop(Options options) {
        this(options, System::nanoTime);
    }

    EventLoop(Options options, LongSupplier clock) {
        this.options = options;
        this.budgetNanos = options.turnBudget().toNanos();
        this.clock = clock;
        this.tasks = new TaskQueue(options.taskQueueSize());
        this.timers = new Timers(options.maxTimers(), clock.getAsLong(), e -> LOG.error("timer_failed", e, "loop", name()));
        try {
            this.poller = options.poller().open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a poller", e);
        }
        this.thread = Thread.ofPlatform().name(options.name()).unstarted(this::run);
    }

    public void start() {
        thread.start();
    }

    public String name() {
        return options.name();
    }

    public boolean inEventLoop() {
        return Thread.currentThread() == thread;
    }

    /** The event loop running the calling thread, or null when the caller is not on an event loop thread. */
    public static EventLoop current() {
        return CURRENT.get();
    }

    public Thread thread() {
        return thread;
    }

    /** Current time of the loop's clock, in nanoseconds. */
    public long nanoTime() {
        return clock.getAsLong();
    }

    /**
     * The loop's clock as the loop last read it for itself, at no cost: after a poll, and after each
     * channel, task and timer it handled. From a channel's or a task's handler, the time that handling
     * began (or a little earlier); loop thread only.
     */
    public long lastNanoTime() {
        return lastRead;
    }

    private long readClock() {
        return lastRead = clock.getAsLong();
    }

    /**
     * Queues a task for the loop thread. Throws {@link java.util.concurrent.RejectedExecutionException}
     * when the queue is full or the loop has stopped.
     */
    @Override
    public void execute(Runnable task) {
        if (!running) throw new java.util.concurrent.RejectedExecutionException("event loop " + name() + " is stopped");
        tasks.offer(task);
        if (!inEventLoop() && wakeupNeeded.get() && wakeupNeeded.compareAndSet(true, false)) {
            poller.wakeup();
        }
    }

    /**
     * Reserves a place in the task queue for a task another thread will hand over later with
     * {@link #executeReserved}, which the bound then never refuses; false when the queue is full or
     * the loop has stopped. Each reservation ends with one {@code executeReserved} or one
     * {@link #cancelReservedTasks cancellation}.
     */
    public boolean tryReserveTask() {
        return running && tasks.tryReserve();
    }

    /** Gives back {@code count} places reserved with {@link #tryReserveTask} and not used, in one step. */
    public void cancelReservedTasks(int count) {
        tasks.cancelReservations(count);
    }

    /**
     * Queues the task of a place reserved with {@link #tryReserveTask}. Throws
     * {@link java.util.concurrent.RejectedExecutionException} only when the loop has stopped.
     */
    public void executeReserved(Runnable task) {
        tasks.offerReserved(task);
        if (!inEventLoop() && wakeupNeeded.get() && wakeupNeeded.compareAndSet(true, false)) {
            poller.wakeup();
        }
    }

    /**
     * Runs {@code hook} once as the current turn ends, after its ready channels and tasks, before the
     * loop polls again; loop thread only. For work that gathers what a turn produced and hands it
     * over once (waking another thread once per turn, not once per item): a hook already waiting for
     * this turn's end is not added again, so a caller may ask on every item. Takes no place in the
     * task queue.
     */
    public void atTurnEnd(Runnable hook) {
        assert inEventLoop() : "atTurnEnd outside the event loop";
        for (int i = 0; i < turnEnds.size(); i++) {
            if (turnEnds.get(i) == hook) return;
        }
        turnEnds.add(hook);
    }

    /** Registers a channel for {@code ops} ({@link Poller#READ}, …) with the handler of its readiness; loop thread only. */
    public Poller.Registration register(SelectableChannel channel, int ops, IoHandler handler) throws IOException {
        assert inEventLoop() : "register outside the event loop";
        return poller.register(channel, ops, handler);
    }

    /**
     * Runs {@code task} on this loop after {@code delay}; loop thread only. A task that throws is
     * logged and does not end the loop.
     */
    public Timer schedule(long delay, TimeUnit unit, Runnable task) {
        return scheduleAt(clock.getAsLong() + unit.toNanos(delay), task);
    }

    /**
     * Runs {@code task} on this loop once its clock reaches {@code nanoTime} (as soon as it can when it
     * already has); loop thread only. For a deadline kept as a time of the loop's clock: no reading of
     * the clock to turn it into a delay.
     */
    public Timer scheduleAt(long nanoTime, Runnable task) {
        assert inEventLoop() : "scheduleAt outside the event loop";
        return timers.schedule(nanoTime, task);
    }

    /**
     * Rounds of the loop so far. A round is one poll and the handling of every channel it returned,
     * with the timers and tasks run between them; a loop whose count stands still while it is not
     * {@link #isWaiting} is stuck in one handler, task or timer, or cannot get through its ready
     * channels.
     */
    public long rounds() {
        return rounds.get();
    }

    /** True while the loop waits in a poll for I/O or a timer (any thread). */
    public boolean isWaiting() {
        return waiting.get();
    }

    /** Labels what the loop is running now (say, a route), for the watchdog's report; loop thread, null clears. */
    public void markActivity(Object label) {
        activity.lazySet(label);
        if (label != null) roundActivity.lazySet(label);
    }

    /**
     * What the loop is running now, or else what it ran last in this round (any thread): a round of
     * many short blocking handlers is caught between two of them as often as within one, and is
     * theirs all the same.
     */
    public Object activity() {
        Object now = activity.get();
        return now != null ? now : roundActivity.get();
    }

    /** Tasks waiting in the queue (a gauge; any thread). */
    public int pendingTasks() {
        return tasks.size();
    }

    /** Channels registered on this loop (a gauge; any thread, approximate). */
    public int registeredChannels() {
        return poller.size();
    }

    /** True once the loop was asked to stop (or failed): it runs no new timers and refuses tasks. */
    public boolean isStopping() {
        return !running;
    }

    /** Asks the loop to stop after its current turn; registered handlers get {@link IoHandler#onClosedByLoop}. */
    public void shutdown() {
        running = false;
        poller.wakeup();
    }

    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return terminated.await(timeout, unit);
    }

    private void run() {
        CURRENT.set(this);
        try {
            while (running) {
                if (ready.isEmpty()) {
                    rounds.lazySet(rounds.get() + 1);
                    roundActivity.lazySet(null);
                    poll();
                }
                handleReady();
                timers.runExpired(readClock());
                runTasks();
                runTurnEnds();
                timers.runExpired(readClock());
            }
        } catch (Throwable fatal) {
            LOG.error("event_loop_failed", fatal, "loop", name());
        } finally {
            running = false; // a dead loop refuses work instead of queueing it forever
            closeAll();
            terminated.countDown();
        }
    }

    /** Adds the channels ready now to {@link #ready}; blocks only when no task is pending. */
    private void poll() throws IOException {
        if (!tasks.isEmpty()) {
            poller.poll(0, addReady);
            return;
        }
        wakeupNeeded.set(true);
        if (!tasks.isEmpty() || !running) {
            wakeupNeeded.set(false);
            poller.poll(0, addReady);
            return;
        }
        long nanos = timers.nanosToNext(readClock());
        if (nanos == 0) {
            poller.poll(0, addReady);
        } else {
            waiting.lazySet(true);
            poller.poll(nanos, addReady);
            waiting.lazySet(false);
        }
        wakeupNeeded.set(false);
    }

    /** Handles ready channels in poll order until none is left or the turn budget is spent. */
    private void handleReady() {
        if (ready.isEmpty()) return;
        long deadline = readClock() + budgetNanos;
        Poller.Registration registration;
        while ((registration = ready.poll()) != null) {
            onReady(registration);
            if (readClock() - deadline > 0) return;
        }
    }

    private void onReady(Poller.Registration registration) {
        // Handled a turn or more after its poll, a channel may have been closed, or stopped wanting an
        // operation (a connection that paused reading), meanwhile: pass on only what is still wanted.
        int ops = registration.readyOps();
        if (ops == 0) return;
        IoHandler handler = registration.handler();
        try {
            handler.onReady(ops);
        } catch (Throwable e) {
            // Any failure, an Error included, costs this channel only, never the loop.
            LOG.error("io_handler_failed", e, "loop", name());
            registration.close();
            try {
                handler.onClosedByLoop();
            } catch (Throwable cleanup) {
                LOG.warn("io_handler_cleanup_failed", cleanup, "loop", name());
            }
        }
    }

    private void runTasks() {
        if (tasks.isEmpty()) return;
        long deadline = readClock() + budgetNanos;
        Runnable task;
        while ((task = tasks.poll()) != null) {
            try {
                task.run();
            } catch (Throwable e) {
                LOG.error("task_failed", e, "loop", name());
            }
            // A clock read costs some 20 ns, less than any task: read it after each, so slow tasks stop on time too.
            if (readClock() - deadline > 0) return;
        }
    }

    private void runTurnEnds() {
        if (turnEnds.isEmpty()) return;
        for (int i = 0; i < turnEnds.size(); i++) { // a hook may add another: it runs in this pass
            try {
                turnEnds.get(i).run();
            } catch (Throwable e) {
                LOG.error("turn_end_failed", e, "loop", name());
            }
        }
        turnEnds.clear();
    }

    private void closeAll() {
        runTurnEnds();
        ready.clear();
        for (Poller.Registration registration : poller.registrations()) {
            try {
                registration.handler().onClosedByLoop();
            } catch (RuntimeException e) {
                LOG.warn("close_on_shutdown_failed", e, "loop", name());
            }
            registration.close();
        }
        // Tasks accepted before the queue closed still run, on this thread, after the channels closed: a
        // response task finds its connection closed, a client call fails its future. None is lost.
        tasks.close();
        tasks.drainAfterClose(task -> {
            try {
                task.run();
            } catch (Throwable e) {
                LOG.warn("task_after_shutdown_failed", e, "loop", name());
            }
        });
        try {
            poller.close();
        } catch (IOException e) {
            LOG.warn("poller_close_failed", e, "loop", name());
        }
    }
}
