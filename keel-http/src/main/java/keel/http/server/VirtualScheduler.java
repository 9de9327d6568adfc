package keel.http.server;

/** What runs the virtual threads of the {@code virtual-thread} execution. */
public enum VirtualScheduler {
    /** Keel's carrier threads, woken once per loop turn, where the JVM allows it; the JDK's scheduler elsewhere. */
    KEEL,
    /** The JDK's {@code ForkJoinPool}, shared with every other virtual thread of the JVM. */
    JDK
}
