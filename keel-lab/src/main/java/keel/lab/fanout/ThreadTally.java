package keel.lab.fanout;

import keel.core.loop.EventLoop;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which threads did a fan-out's work: each call's work and completion records the thread it ran on.
 * The handler's own thread (made by the execution, whatever the fan-out does) is named apart.
 */
final class ThreadTally {
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final Set<Thread> beyondLoops = ConcurrentHashMap.newKeySet();
    private final String handler = kind(Thread.currentThread());

    void record() {
        Thread thread = Thread.currentThread();
        threads.add(thread);
        if (EventLoop.current() == null) beyondLoops.add(thread);
    }

    /** The handler's thread kind; the fan-out's distinct threads, and how many of them are not event loops. */
    record Count(String handler, int used, int beyondLoops) {
    }

    Count count() {
        return new Count(handler, threads.size(), beyondLoops.size());
    }

    /** Puts the count into {@code json} as {@code "threads":{"handler":…,"used":…,"beyondLoops":…}}. */
    void report(com.fasterxml.jackson.databind.node.ObjectNode json) {
        Count count = count();
        json.putObject("threads").put("handler", count.handler()).put("used", count.used()).put("beyondLoops", count.beyondLoops());
    }

    private static String kind(Thread thread) {
        if (EventLoop.current() != null) return "event-loop";
        return thread.isVirtual() ? "virtual" : "platform";
    }
}
