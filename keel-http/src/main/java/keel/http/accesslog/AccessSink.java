package keel.http.accesslog;

import keel.core.log.Log;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * Where the access log's writer puts its lines: a stream (standard output, a caller's) or a file
 * ({@link LogFile}), in writes of up to 1 MiB that end on whole lines (a reader following the file
 * never sees half a line). Large writes, because each write to a file has a price of its own, whatever
 * its size: with 64 KiB writes the writer threads cost 0.14-0.17 µs a pipelined line, with 1 MiB
 * writes 0.10. A stream's buffer starts at {@value #FIRST_STREAM_SIZE} bytes and doubles, up to
 * {@value #WRITE_SIZE}, when a block of lines does not fit in it (instead of a write): a quiet server
 * (and the warm-up's throwaway one) holds 64 KiB instead of a mebibyte, and a busy one still writes
 * a mebibyte at a time. A failed write loses its lines: each call returns how many, and the first
 * failure after a success is logged. Writer thread only.
 */
final class AccessSink {
    private static final Log LOG = Log.of(AccessSink.class);
    static final int WRITE_SIZE = 1024 * 1024;
    static final int FIRST_STREAM_SIZE = 64 * 1024;

    /** Null when the sink is a stream. */
    private final LogFile file;
    /** Null when the sink is a file. */
    private final OutputStream stream;
    private final boolean owned;
    private final String destination;
    /** The file's buffer, or the stream's (which grows). */
    private ByteBuffer buffer;
    /** Whole lines in {@link #buffer} not written yet. */
    private int lines;
    private boolean failing;

    private AccessSink(LogFile file, OutputStream stream, boolean owned, String destination) {
        this.file = file;
        this.stream = stream;
        this.owned = owned;
        this.destination = destination;
        this.buffer = file != null ? file.buffer() : ByteBuffer.allocate(FIRST_STREAM_SIZE);
    }

    /** A log file, closed with the sink. */
    static AccessSink file(LogFile file, String destination) {
        return new AccessSink(file, null, true, destination);
    }

    /** A stream, closed with the sink when {@code owned}. */
    static AccessSink stream(OutputStream stream, boolean owned, String destination) {
        return new AccessSink(null, stream, owned, destination);
    }

    /** How many bytes the buffer holds before it is written. */
    int capacity() {
        return buffer.capacity();
    }

    String destination() {
        return destination;
    }

    /** Adds a block of lines, writing what is held first when it does not fit; returns the lines lost. */
    int add(AccessLog.Lines block) {
        byte[] bytes = block.bytes();
        int length = block.length();
        if (length > buffer.remaining() && stream != null && buffer.capacity() < WRITE_SIZE) {
            buffer = ByteBuffer.allocate(buffer.capacity() * 2).put(buffer.flip());
        }
        int lost = length > buffer.remaining() ? write() : 0;
        for (int at = 0; at < length; ) { // in pieces only when larger than the buffer
            if (!buffer.hasRemaining()) lost += write();
            int n = Math.min(buffer.remaining(), length - at);
            buffer.put(bytes, at, n);
            at += n;
        }
        lines += block.count();
        return lost;
    }

    /** Writes what is held and flushes; returns the lines lost. */
    int flush() {
        int lost = write();
        if (stream != null) {
            try {
                stream.flush();
            } catch (IOException e) {
                failed(e);
            }
        }
        return lost;
    }

    void close() {
        if (!owned) return;
        try {
            if (file != null) file.close();
            else stream.close();
        } catch (IOException e) {
            LOG.warn("access_log_close_failed", "destination", destination, "cause", e);
        }
    }

    private int write() {
        int count = lines;
        lines = 0;
        try {
            if (file != null) {
                file.write();
            } else if (buffer.position() > 0) {
                stream.write(buffer.array(), buffer.arrayOffset(), buffer.position());
            }
            failing = false;
            return 0;
        } catch (IOException e) {
            failed(e);
            return count;
        } finally {
            if (file == null) buffer.clear();
        }
    }

    private void failed(IOException e) {
        if (!failing) LOG.warn("access_log_write_failed", "destination", destination, "cause", e);
        failing = true;
    }
}
