package keel.http.server;

import keel.core.guard.BlockedLoop;
import keel.core.guard.LagProbe;
import keel.core.guard.LoopWatchdog;
import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.http.execution.Dispatcher;
import keel.http.router.Route;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The guard of a nio server's loops: a {@link LagProbe} per loop and one {@link LoopWatchdog}. A caught
 * stall is counted (per route when a handler was running), logged with the loop's stack (the first
 * time for each route, then at most every {@link #LOG_EVERY_NANOS} with the number suppressed), and,
 * under policy {@code offload}, moves the route to virtual threads.
 */
final class LoopGuard implements AutoCloseable {
    private static final Log LOG = Log.of(LoopGuard.class);
    private static final long LOG_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final int STACK_DEPTH = 25;

    private final ServerOptions.Guard options;
    private final Dispatcher dispatcher;
    private final ServerObserver observer;
    private final List<LagProbe> probes = new ArrayList<>();
    private final LoopWatchdog watchdog;
    private final AtomicLong blockedEvents = new AtomicLong();
    private final Map<Route, LongAdder> blockedByRoute = new ConcurrentHashMap<>();
    /** Per route (or the loop's name when no route ran): when a warning was last logged and how many since. */
    private final Map<Object, long[]> lastWarning = new ConcurrentHashMap<>();

    LoopGuard(List<EventLoop> loops, ServerOptions.Guard options, Dispatcher dispatcher, ServerObserver observer) {
        this.options = options;
        this.dispatcher = dispatcher;
        this.observer = observer;
        for (EventLoop loop : loops) {
            LagProbe probe = new LagProbe(loop, options.lagProbeInterval().toNanos());
            probes.add(probe);
            loop.execute(probe::start);
        }
        this.watchdog = new LoopWatchdog(loops, options.blockedThreshold(), this::onBlocked);
        watchdog.start();
    }

    /** On the watchdog thread. */
    private void onBlocked(BlockedLoop event) {
        Route route = event.activity() instanceof Route r ? r : null;
        blockedEvents.incrementAndGet();
        if (route != null) blockedByRoute.computeIfAbsent(route, r -> new LongAdder()).increment();
        logRateLimited(event, route);
        if (options.onBlocked() == ServerOptions.OnBlocked.OFFLOAD && route != null && dispatcher.offload(route)) {
            LOG.warn("route_offloaded", "route", route.method() + " " + route.path(), "to", "virtual-thread",
                    "reason", "it blocked event loop " + event.loop().name());
        }
        observer.onBlockedLoop(event, route == null ? null : route.path());
    }

    private void logRateLimited(BlockedLoop event, Route route) {
        Object key = route != null ? route : event.loop().name();
        long now = System.nanoTime();
        long[] state = lastWarning.computeIfAbsent(key, k -> new long[]{now - LOG_EVERY_NANOS - 1, 0});
        synchronized (state) {
            if (now - state[0] < LOG_EVERY_NANOS) {
                state[1]++;
                return;
            }
            long suppressed = state[1];
            state[0] = now;
            state[1] = 0;
            LOG.warn("event_loop_blocked", "loop", event.loop().name(),
                    "blocked_at_least_ms", TimeUnit.NANOSECONDS.toMillis(event.blockedNanos()),
                    "route", route == null ? "-" : route.method() + " " + route.path(),
                    "similar_since_last_warning", suppressed,
                    "stack", event.stackText(STACK_DEPTH));
        }
    }

    List<LagProbe> probes() {
        return List.copyOf(probes);
    }

    long blockedEvents() {
        return blockedEvents.get();
    }

    long blockedEvents(Route route) {
        LongAdder count = blockedByRoute.get(route);
        return count == null ? 0 : count.sum();
    }

    @Override
    public void close() {
        watchdog.close();
    }
}
