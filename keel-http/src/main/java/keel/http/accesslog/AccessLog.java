package keel.http.accesslog;

import keel.core.log.Log;
import keel.core.log.LogFormat;
import keel.core.loop.EventLoop;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The access log: one line per request, encoded on the connection's thread ({@link AccessLines}) and
 * handed, in blocks of whole lines, to one writer thread through a queue bounded by
 * {@code log.access-queue} lines. {@link #offer} never waits, not even for a lock (the queue is a
 * lock-free ring, {@link EntryRing}): when a block would take the queue past its bound (the sink is
 * slow, or stuck: a terminal nobody reads) its lines are dropped and counted in {@link #dropped()}, as
 * are the lines of a write that failed. The writer sleeps until a block wakes it, then lets lines
 * gather for 10 ms, taking them off the queue into the sink's buffer when they come and whenever the
 * queue is a quarter full; the sink writes whenever its buffer is full, and what is left, flushed, at the
 * end. It is a daemon thread, started with the server; {@link #close} (when the server has stopped)
 * writes what is queued, flushes and ends it.
 */
public final class AccessLog implements AutoCloseable {
    private static final Log LOG = Log.of(AccessLog.class);
    /**
     * How long the writer lets lines gather once one is queued: one write for all of them, instead of a
     * wake-up and a system call per line, which on a busy CPU would cost each request more than its
     * line; at a hundred megabytes a second, a write of a megabyte. The time a line may take to reach
     * the file, or the terminal. A queue a quarter full wakes the writer early, to take its lines: the
     * rest of the queue's default bound holds 49 ms of lines at a million a second, the writer's slack
     * when it waits for a busy CPU or for the file system (a write may wait while the file's pages are
     * written back: with a bound of 8 192 lines, a minute of pipelined load dropped 40 000 to 70 000).
     */
    private static final long GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long CLOSE_WAIT_MILLIS = 5_000;

    /**
     * Whole lines, encoded: {@code count} of them in the first {@code length} of {@code bytes}, an array
     * the writer gives back to {@code spares} once written (null: a copy, left to the collector).
     */
    record Lines(byte[] bytes, int length, int count, EntryRing<byte[]> spares) {
        /** Writer thread, once the lines are in the sink: the array goes back to its loop, or to the collector when the loop has enough. */
        void written() {
            if (spares != null) spares.offer(bytes);
        }
    }

    private final LogFormat format;
    /** At most {@link #limit} lines; as many blocks, since a block holds one line or more. */
    private final EntryRing<Lines> queue;
    private final int limit;
    private final AtomicInteger queuedLines = new AtomicInteger();
    /** Queued lines at which an offer wakes a writer that lets lines gather. */
    private final int wakeAt;
    private final AccessSink sink;
    private final long gatherNanos;
    private final RequestIds ids = new RequestIds();
    private final LongAdder dropped = new LongAdder();
    private final Thread writer;
    /** True while the writer sleeps until a line arrives: an offer then wakes it. */
    private volatile boolean idle;
    private volatile boolean closed;

    /**
     * A log writing {@code format} lines to {@code sink} (owned: closed at the end when
     * {@code ownsSink}), letting them gather for {@code gatherNanos} before a write; {@code destination}
     * names it in warnings.
     */
    AccessLog(LogFormat format, int queueSize, OutputStream sink, boolean ownsSink, String destination, long gatherNanos) {
        this(format, queueSize, AccessSink.stream(sink, ownsSink, destination), gatherNanos);
    }

    private AccessLog(LogFormat format, int queueSize, AccessSink sink, long gatherNanos) {
        this.format = format;
        this.gatherNanos = gatherNanos;
        this.queue = new EntryRing<>(queueSize);
        this.limit = queueSize;
        this.wakeAt = Math.max(1, queueSize / 4);
        this.sink = sink;
        this.writer = Thread.ofPlatform().name("keel-access-log").daemon(true).start(this::writeUntilClosed);
    }

    /**
     * The access log of {@code format} lines, queueing at most {@code queueSize} of them, appended to
     * {@code file} ({@code log.access-file}; null: standard output), its pages dropped from the page
     * cache once written when {@code dropBehind}. The file, when one is set, is opened for appending
     * now: one that cannot be opened stops the start with a message naming it. A file that is not a
     * regular one (a named pipe, {@code /dev/stdout}) is written as a stream.
     */
    public static AccessLog open(LogFormat format, int queueSize, Path file, boolean dropBehind) throws IOException {
        if (file == null) return new AccessLog(format, queueSize, System.out, false, "standard output", GATHER_NANOS);
        AccessSink sink;
        try {
            if (Files.exists(file) && !Files.isRegularFile(file)) {
                sink = AccessSink.stream(Files.newOutputStream(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND), true, file.toString());
            } else {
                sink = AccessSink.file(LogFile.open(file, AccessSink.WRITE_SIZE, dropBehind), file.toString());
            }
        } catch (IOException e) {
            throw new IOException("cannot open the access log file " + file + " (log.access-file): " + e.getMessage(), e);
        }
        return new AccessLog(format, queueSize, sink, GATHER_NANOS);
    }

    /** Like {@link #open}, writing to {@code sink} (not closed at the end) instead of standard output or the file. */
    public static AccessLog to(OutputStream sink, LogFormat format, int queueSize) {
        return new AccessLog(format, queueSize, sink, false, "the given stream", GATHER_NANOS);
    }

    /** Where the lines of event loop {@code loop} are encoded; that loop's thread uses it. */
    public AccessLines linesOf(EventLoop loop) {
        return new AccessLines(this, format, loop);
    }

    /** Where the lines of one connection of the blocking transport are encoded; its thread uses it. */
    AccessLines blockingLines() {
        return new AccessLines(this, format, null);
    }

    /** The ids of this server's requests; any thread. */
    RequestIds ids() {
        return ids;
    }

    /**
     * Queues a block of lines for the writer, or drops and counts them when they would take the queue
     * past its bound or the log is closed; never waits. Wakes the writer when it sleeps for want of
     * lines, or when these lines fill a quarter of the queue while the writer lets lines gather.
     */
    void offer(Lines lines) {
        int count = lines.count();
        int queued = closed ? Integer.MAX_VALUE : queuedLines.addAndGet(count);
        if (queued > limit || queue.offer(lines) == 0) {
            if (queued != Integer.MAX_VALUE) queuedLines.addAndGet(-count);
            dropped.add(count);
            return;
        }
        if (idle || (queued >= wakeAt && queued - count < wakeAt)) {
            idle = false; // the offers after this one leave the wake-up to it
            LockSupport.unpark(writer);
        }
    }

    /** Lines queued for the writer and not yet taken by it. */
    int queuedLines() {
        return queuedLines.get();
    }

    /** Lines dropped so far: the queue was full, the sink failed, or the log was closed. */
    public long dropped() {
        return dropped.sum();
    }

    /** Writes what is queued, flushes, and ends the writer (waiting for it at most 5 s: a stuck sink is left behind). */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(writer);
        try {
            writer.join(CLOSE_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (writer.isAlive()) LOG.warn("access_log_stuck", "destination", sink.destination(), "queued_lines", queue.size());
    }

    // ---- the writer thread ----------------------------------------------------------------------

    private void writeUntilClosed() {
        while (true) {
            awaitLine();
            if (closed && queue.isEmpty()) break;
            long gatherEnd = System.nanoTime() + gatherNanos;
            while (true) {
                takeQueued();
                long left = gatherEnd - System.nanoTime();
                if (closed || left <= 0) break;
                LockSupport.parkNanos(this, left); // an offer filling a quarter of the queue wakes it
            }
            dropped.add(sink.flush());
        }
        sink.close();
    }

    /** Moves the queued lines into the sink, which writes whenever its buffer fills. */
    private void takeQueued() {
        Lines lines;
        while ((lines = queue.poll()) != null) {
            queuedLines.addAndGet(-lines.count());
            dropped.add(sink.add(lines));
            lines.written();
        }
    }

    /**
     * Returns once a line is queued or the log closed; sleeps until an offer wakes it when none is.
     * The flag goes up before each look at the queue: an offer either is seen by that look or sees the
     * flag and wakes the writer. Raised again after every wake-up, because an offer that saw it raised
     * earlier may lower it late, waking the writer for a line it already wrote.
     */
    private void awaitLine() {
        while (true) {
            idle = true;
            if (!queue.isEmpty() || closed) break;
            LockSupport.park(this);
        }
        idle = false;
    }
}
