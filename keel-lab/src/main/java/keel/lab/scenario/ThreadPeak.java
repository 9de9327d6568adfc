package keel.lab.scenario;

import java.time.Duration;

/** The most live threads a Keel JVM had while it was watched: /proc read every 20 ms on a virtual thread. */
final class ThreadPeak implements AutoCloseable {
    private final KeelProcess process;
    private final Thread watcher;
    private volatile int peak;
    private volatile boolean stopped;

    private ThreadPeak(KeelProcess process) {
        this.process = process;
        this.peak = process.threads();
        this.watcher = Thread.ofVirtual().name("lab-thread-peak").start(this::watch);
    }

    static ThreadPeak watch(KeelProcess process) {
        return new ThreadPeak(process);
    }

    private void watch() {
        while (!stopped) {
            peak = Math.max(peak, process.threads());
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    int peak() {
        return peak;
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        watcher.interrupt();
        watcher.join(Duration.ofSeconds(2));
        peak = Math.max(peak, process.threads());
    }
}
