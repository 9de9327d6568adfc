package keel.http.server;

import keel.core.log.Log;
import keel.core.log.LogFormat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The access log: one line per request, handed by the connections' threads to one writer thread
 * through a queue bounded by {@code log.access-queue}. {@link #offer} never waits: when the queue is
 * full (the sink is slow, or stuck: a terminal nobody reads) the line is dropped and counted in
 * {@link #dropped()}. The writer formats the lines ({@link AccessEntry}), gathers what arrives within
 * a millisecond into one write, and flushes whenever the queue runs dry; an idle writer sleeps until
 * the next line wakes it. It is a daemon thread, started with the server; {@link #close} (when the
 * server has stopped) writes what is queued, flushes and ends it.
 */
final class AccessLog implements AutoCloseable {
    private static final Log LOG = Log.of(AccessLog.class);
    /** Lines taken from the queue at once. */
    private static final int BATCH = 256;
    /** Bytes gathered before they go to the sink, so one write stays bounded whatever the lines. */
    private static final int WRITE_SIZE = 64 * 1024;
    /** How long a writer that just wrote lets the next lines gather: one wake-up per batch, not per line. */
    private static final long GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long CLOSE_WAIT_MILLIS = 5_000;
    private static final DateTimeFormatter SECOND = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.");

    private final LogFormat format;
    private final ArrayBlockingQueue<AccessEntry> queue;
    private final OutputStream sink;
    private final boolean ownsSink;
    private final String destination;
    private final RequestIds ids = new RequestIds();
    private final LongAdder dropped = new LongAdder();
    private final Thread writer;
    /** True while the writer sleeps until a line arrives: an offer then wakes it. */
    private volatile boolean idle;
    private volatile boolean closed;

    /**
     * A log writing {@code format} lines to {@code sink} (owned: closed at the end when
     * {@code ownsSink}); {@code destination} names it in warnings.
     */
    AccessLog(LogFormat format, int queueSize, OutputStream sink, boolean ownsSink, String destination) {
        this.format = format;
        this.queue = new ArrayBlockingQueue<>(queueSize);
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
        if (file == null) return new AccessLog(options.format(), options.accessQueue(), System.out, false, "standard output");
        OutputStream out;
        try {
            out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new IOException("cannot open the access log file " + file + " (log.access-file): " + e.getMessage(), e);
        }
        return new AccessLog(options.format(), options.accessQueue(), out, true, file.toString());
    }

    /** Like {@link #open}, writing to {@code sink} (not closed at the end) instead of standard output or the file. */
    static AccessLog to(OutputStream sink, ServerOptions.Logging options) {
        return options.access() ? new AccessLog(options.format(), options.accessQueue(), sink, false, "the given stream") : null;
    }

    /** The id of a request that came with {@code given} as its {@code X-Request-Id} (or null); any thread. */
    String requestId(String given) {
        return ids.idFor(given);
    }

    /** Queues a line for the writer, or drops and counts it when the queue is full or the log closed; never waits. */
    void offer(AccessEntry entry) {
        if (closed || !queue.offer(entry)) {
            dropped.increment();
            return;
        }
        if (idle) LockSupport.unpark(writer);
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
        Lines lines = new Lines();
        List<AccessEntry> batch = new ArrayList<>(BATCH);
        boolean failing = false;
        while (true) {
            int taken = queue.drainTo(batch, BATCH);
            try {
                for (AccessEntry entry : batch) lines.add(entry);
                if (taken < BATCH) lines.flush();
                failing = false;
            } catch (IOException e) {
                if (!failing) LOG.warn("access_log_write_failed", "destination", destination, "cause", e);
                failing = true;
                dropped.add(lines.discard());
            }
            batch.clear();
            if (taken == BATCH) continue; // more are waiting
            if (closed && queue.isEmpty()) break;
            if (taken > 0) LockSupport.parkNanos(this, GATHER_NANOS);
            else awaitLine();
        }
        if (ownsSink) {
            try {
                sink.close();
            } catch (IOException e) {
                LOG.warn("access_log_close_failed", "destination", destination, "cause", e);
            }
        }
    }

    private void awaitLine() {
        idle = true;
        // Checked again after raising the flag: a line offered before it was seen raised gets written.
        if (queue.isEmpty() && !closed) LockSupport.park(this);
        idle = false;
    }

    /** The writer's buffer: formatted lines as ASCII bytes, written to the sink in pieces of at most {@link #WRITE_SIZE}. */
    private final class Lines {
        private final StringBuilder line = new StringBuilder(256);
        private final byte[] bytes = new byte[WRITE_SIZE];
        private int length;
        private int linesHeld;
        private long second = Long.MIN_VALUE;
        private String secondText;
        private final StringBuilder time = new StringBuilder(24);

        void add(AccessEntry entry) throws IOException {
            line.setLength(0);
            entry.appendTo(line, format, timeOf(entry.epochMillis()));
            line.append('\n');
            if (length + line.length() > bytes.length) writeHeld();
            int end = line.length();
            for (int i = 0; i < end; i++) {
                if (length == bytes.length) writeHeld(); // a line longer than the buffer goes in pieces
                char c = line.charAt(i);
                bytes[length++] = (byte) (c < 0x80 ? c : '?');
            }
            linesHeld++;
        }

        void flush() throws IOException {
            writeHeld();
            sink.flush();
        }

        /** Forgets what is held (after a failed write); returns how many lines that was. */
        int discard() {
            int lost = linesHeld;
            length = 0;
            linesHeld = 0;
            return lost;
        }

        private void writeHeld() throws IOException {
            if (length > 0) sink.write(bytes, 0, length);
            length = 0;
            linesHeld = 0;
        }

        /** ISO-8601 in UTC with milliseconds ({@code 2026-11-21T11:39:34.123Z}), the date part made once a second. */
        private CharSequence timeOf(long epochMillis) {
            long s = Math.floorDiv(epochMillis, 1000);
            if (s != second) {
                second = s;
                secondText = SECOND.format(LocalDateTime.ofEpochSecond(s, 0, ZoneOffset.UTC));
            }
            int millis = (int) Math.floorMod(epochMillis, 1000);
            time.setLength(0);
            time.append(secondText).append((char) ('0' + millis / 100)).append((char) ('0' + millis / 10 % 10))
                    .append((char) ('0' + millis % 10)).append('Z');
            return time;
        }
    }
}
