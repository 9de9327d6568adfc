package keel.http;

/** What runs the virtual threads of the {@code virtual-thread} execution. */
public enum VirtualScheduler {
    /**
     * Keel's carrier threads, woken once per loop turn, where the JVM opens {@code java.base/java.lang}
     * to Keel ({@code --add-opens}); the JDK's scheduler elsewhere.
     */
    KEEL,
    /** The JDK's {@code ForkJoinPool}, shared with every other virtual thread of the JVM: the default. */
    JDK,
    /**
     * The loop of the request's connection: the virtual thread's continuations are tasks of that loop,
     * run on its thread with no thread to wake and no hand-over, and the loop takes up its other
     * channels whenever the virtual thread blocks and unmounts. A virtual thread that computes for
     * long, or blocks pinned to its carrier (a native call, a file read, a class initialiser), holds
     * the loop as an event-loop handler would, and one pinned while it waits for something only its
     * loop can do never gets it. Threads it starts run on the same loop, one at a time. Needs
     * {@code java.base/java.lang} opened to Keel, as {@link #KEEL} does; without it, the JDK's scheduler.
     */
    LOOP
}
