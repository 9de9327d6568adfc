package keel.http.server;

import keel.core.log.Log;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Where the access log's writer puts its lines, gathered into writes of up to 64 KiB (a larger block
 * goes alone): a file, through its channel from a direct buffer, so the bytes are copied once on
 * their way to the kernel; or a stream (standard output, a caller's). A failed write loses its lines:
 * each call returns how many, and the first failure after a success is logged. Writer thread only.
 */
final class AccessSink {
    private static final Log LOG = Log.of(AccessSink.class);
    static final int WRITE_SIZE = 64 * 1024;

    /** Null when the sink is a stream. */
    private final FileChannel file;
    /** Null when the sink is a file. */
    private final OutputStream stream;
    private final boolean owned;
    private final String destination;
    private final ByteBuffer buffer;
    /** Whole lines in {@link #buffer}. */
    private int lines;
    private boolean failing;

    private AccessSink(FileChannel file, OutputStream stream, boolean owned, String destination) {
        this.file = file;
        this.stream = stream;
        this.owned = owned;
        this.destination = destination;
        this.buffer = file != null ? ByteBuffer.allocateDirect(WRITE_SIZE) : ByteBuffer.allocate(WRITE_SIZE);
    }

    /** A file opened for appending, closed with the sink. */
    static AccessSink file(FileChannel file, String destination) {
        return new AccessSink(file, null, true, destination);
    }

    /** A stream, closed with the sink when {@code owned}. */
    static AccessSink stream(OutputStream stream, boolean owned, String destination) {
        return new AccessSink(null, stream, owned, destination);
    }

    String destination() {
        return destination;
    }

    /** Adds a block of lines, writing what is held first when they do not fit; returns the lines lost. */
    int add(AccessLog.Lines block) {
        byte[] bytes = block.bytes();
        int lost = buffer.remaining() < bytes.length ? write() : 0;
        if (bytes.length > buffer.capacity()) return lost + write(ByteBuffer.wrap(bytes), block.count());
        buffer.put(bytes);
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
        if (buffer.position() == 0) return 0;
        int lost = write(buffer.flip(), lines);
        buffer.clear();
        lines = 0;
        return lost;
    }

    private int write(ByteBuffer bytes, int count) {
        try {
            if (file != null) {
                while (bytes.hasRemaining()) file.write(bytes);
            } else {
                stream.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
            }
            failing = false;
            return 0;
        } catch (IOException e) {
            failed(e);
            return count;
        }
    }

    private void failed(IOException e) {
        if (!failing) LOG.warn("access_log_write_failed", "destination", destination, "cause", e);
        failing = true;
    }
}
