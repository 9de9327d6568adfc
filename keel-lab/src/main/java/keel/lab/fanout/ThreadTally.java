package keel.lab.fanout;

import keel.core.loop.EventLoop;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Which threads did a fan-out's work: each call's work and completion records the thread it ran on. */
final class ThreadTally {
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final Set<Thread> beyondLoops = ConcurrentHashMap.newKeySet();

    void record() {
        Thread thread = Thread.currentThread();
        threads.add(thread);
        if (EventLoop.current() == null) beyondLoops.add(thread);
    }

    /** Distinct threads, and how many of them are not event loops. */
    record Count(int used, int beyondLoops) {
    }

    Count count() {
        return new Count(threads.size(), beyondLoops.size());
    }
}
