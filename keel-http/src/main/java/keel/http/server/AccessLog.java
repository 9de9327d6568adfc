package keel.http.server;

import keel.core.log.Log;
import keel.core.log.LogFormat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The access log: one line per request, handed by the connections' threads to one writer thread
 * through a queue bounded by {@code log.access-queue}. {@link #offer} never waits, not even for a
 * lock (the queue is a lock-free ring, {@link EntryRing}): when the queue is full (the sink is slow, or stuck: a terminal nobody reads) the line
 * is dropped and counted in {@link #dropped()}, as are the lines of a write that failed. The writer
 * sleeps until a line wakes it, lets the lines of the next 2 ms gather (or fewer, once the queue is
 * half full), then encodes them all ({@link AccessEntry}), hands them to the sink in writes of up to
 * 64 KiB, and flushes. It is a daemon thread, started with the server; {@link #close} (when the server
 * has stopped) writes what is queued, flushes and ends it.
 */
final class AccessLog implements AutoCloseable {
    private static final Log LOG = Log.of(AccessLog.class);
    /** Lines taken from the queue at once. */
    private static final int BATCH = 256;
    /** Bytes gathered before they go to the sink, so one write stays bounded whatever the lines. */
    private static final int WRITE_SIZE = 64 * 1024;
    /**
     * How long the writer lets lines gather once one is queued: one wake-up and one write for all of
     * them, instead of a wake-up and a system call per line, which on a busy CPU would cost each request
     * more than its line. Short against what the queue's default bound holds (8 ms of lines at a million
     * a second), which is the writer's slack when it has to wait for a busy CPU.
     */
    private static final long GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final long CLOSE_WAIT_MILLIS = 5_000;
    private static final DateTimeFormatter SECOND = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.");

    private final LogFormat format;
    private final EntryRing<AccessEntry> queue;
    /** Queued lines at which an offer wakes a writer that lets lines gather. */
    private final int wakeAt;
    private final OutputStream sink;
    private final boolean ownsSink;
    private final String destination;
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
        this.format = format;
        this.gatherNanos = gatherNanos;
        this.queue = new EntryRing<>(queueSize);
        this.wakeAt = Math.max(1, queueSize / 2);
        this.sink = sink;
        this.ownsSink = ownsSink;
        this.destination = destination;
        this.writer = Thread.ofPlatform().name("keel-access-log").daemon(true).unstarted(this::writeUntilClosed);
        writer.start();
    }

    /**
     * The access log {@code options} ask for, or null when it is off. The file, when one is set, is
     * opened for appending now: one that cannot be opened stops the start with a message naming it.
     */
    static AccessLog open(ServerOptions.Logging options) throws IOException {
        if (!options.access()) return null;
        Path file = options.accessFile();
        if (file == null) return new AccessLog(options.format(), options.accessQueue(), System.out, false, "standard output", GATHER_NANOS);
        OutputStream out;
        try {
            out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new IOException("cannot open the access log file " + file + " (log.access-file): " + e.getMessage(), e);
        }
        return new AccessLog(options.format(), options.accessQueue(), out, true, file.toString(), GATHER_NANOS);
    }

    /** Like {@link #open}, writing to {@code sink} (not closed at the end) instead of standard output or the file. */
    static AccessLog to(OutputStream sink, ServerOptions.Logging options) {
        return options.access() ? new AccessLog(options.format(), options.accessQueue(), sink, false, "the given stream", GATHER_NANOS) : null;
    }

    /** The ids of this server's requests; any thread. */
    RequestIds ids() {
        return ids;
    }

    /**
     * Queues a line for the writer, or drops and counts it when the queue is full or the log closed;
     * never waits. Wakes the writer when it sleeps for want of lines, or when this line fills half the
     * queue while the writer lets lines gather.
     */
    void offer(AccessEntry entry) {
        int size = closed ? 0 : queue.offer(entry);
        if (size == 0) {
            dropped.increment();
            return;
        }
        if (idle || size == wakeAt) {
            idle = false; // the offers after this one leave the wake-up to it
            LockSupport.unpark(writer);
        }
    }

    /** Lines dropped so far: the queue was full, the sink failed, or the log was closed. */
    long dropped() {
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
        if (writer.isAlive()) LOG.warn("access_log_stuck", "destination", destination, "queued_lines", queue.size());
    }

    // ---- the writer thread ----------------------------------------------------------------------

    private void writeUntilClosed() {
        LineBuffer lines = new LineBuffer(sink, WRITE_SIZE);
        Clock clock = new Clock();
        List<AccessEntry> batch = new ArrayList<>(BATCH);
        boolean failing = false;
        while (true) {
            awaitLine();
            if (closed && queue.isEmpty()) break;
            if (!closed && gatherNanos > 0) LockSupport.parkNanos(this, gatherNanos); // one write for the lines of the next few ms
            clock.calibrate();
            int next = 0; // the entry of the batch being written
            try {
                while (take(batch) > 0) {
                    for (next = 0; next < batch.size(); next++) {
                        AccessEntry entry = batch.get(next);
                        entry.writeTo(lines, format, clock.text(entry.endNanos()), ids.prefix());
                    }
                    batch.clear();
                }
                lines.flush();
                failing = false;
            } catch (IOException e) {
                if (!failing) LOG.warn("access_log_write_failed", "destination", destination, "cause", e);
                failing = true;
                // Lost: the whole lines held, the one being written, and the rest of its batch.
                dropped.add(lines.discard() + Math.max(0, batch.size() - next));
                batch.clear();
            }
        }
        if (ownsSink) {
            try {
                sink.close();
            } catch (IOException e) {
                LOG.warn("access_log_close_failed", "destination", destination, "cause", e);
            }
        }
    }

    /** Moves up to {@link #BATCH} lines from the queue to {@code batch}, freeing their places; returns how many. */
    private int take(List<AccessEntry> batch) {
        AccessEntry entry;
        while (batch.size() < BATCH && (entry = queue.poll()) != null) batch.add(entry);
        return batch.size();
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

    /**
     * A line's time, ISO-8601 in UTC with milliseconds ({@code 2026-11-21T11:39:34.123Z}), from its
     * {@link System#nanoTime()} and the wall clock read once a batch; the date part is made once a second.
     */
    private static final class Clock {
        private final byte[] text = new byte[24];
        private long second = Long.MIN_VALUE;
        /** Wall-clock nanoseconds since the epoch minus {@link System#nanoTime()}, as of the last batch. */
        private long offsetNanos;

        void calibrate() {
            offsetNanos = System.currentTimeMillis() * 1_000_000 - System.nanoTime();
        }

        byte[] text(long nanoTime) {
            long epochMillis = Math.floorDiv(nanoTime + offsetNanos, 1_000_000);
            long s = Math.floorDiv(epochMillis, 1000);
            if (s != second) {
                second = s;
                byte[] date = SECOND.format(LocalDateTime.ofEpochSecond(s, 0, ZoneOffset.UTC)).getBytes(StandardCharsets.US_ASCII);
                System.arraycopy(date, 0, text, 0, 20);
                text[23] = 'Z';
            }
            int millis = (int) Math.floorMod(epochMillis, 1000);
            text[20] = (byte) ('0' + millis / 100);
            text[21] = (byte) ('0' + millis / 10 % 10);
            text[22] = (byte) ('0' + millis % 10);
            return text;
        }
    }
}
