package keel.http.accesslog;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A log file that only grows, written from a buffer of its own, through the page cache; with
 * {@code dropBehind} (where {@link DropBehind} works), its pages leave the cache once they are on the
 * disk.
 * <p>
 * It is the file's one writer: writes are positional, from where the file ended when it was opened.
 * When the file's size is not what this writer left (it was truncated, as by {@code logrotate}'s
 * {@code copytruncate}, or written by someone else), the next write goes to its new end. One thread.
 */
final class LogFile implements AutoCloseable {
    private final FileChannel channel;
    /** Null when the pages stay in the page cache. */
    private final DropBehind dropBehind;
    /** The new bytes, to be written at {@link #end}; a direct buffer, which the channel writes without a copy of its own. */
    private final ByteBuffer buffer;
    /** Where the file ends, as this writer left it. */
    private long end;
    /** A write failed: where the file ends is not known. */
    private boolean lost;

    private LogFile(FileChannel channel, DropBehind dropBehind, int capacity, long end) {
        this.channel = channel;
        this.dropBehind = dropBehind;
        this.buffer = ByteBuffer.allocateDirect(capacity);
        this.end = end;
    }

    /**
     * Opens {@code file} for appending (created when missing), with room for {@code capacity} new bytes
     * between writes, its pages dropped from the page cache once written when {@code dropBehind}.
     */
    static LogFile open(Path file, int capacity, boolean dropBehind) throws IOException {
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            long end = channel.size();
            return new LogFile(channel, dropBehind ? DropBehind.open(file, end) : null, capacity, end);
        } catch (IOException e) {
            channel.close();
            throw e;
        }
    }

    /** What drops the file's pages from the page cache once written, or null when they stay. */
    DropBehind dropBehind() {
        return dropBehind;
    }

    /** Where new bytes are put: {@link #write} before it has no room left. */
    ByteBuffer buffer() {
        return buffer;
    }

    /** Writes the new bytes at the file's end. A failed write drops them; the next one starts from wherever the file then ends. */
    void write() throws IOException {
        if (buffer.position() == 0) return;
        buffer.flip();
        try {
            if (lost || channel.size() != end) { // truncated, or written by someone else, since
                end = channel.size();
                lost = false;
                if (dropBehind != null) dropBehind.from(end);
            }
            while (buffer.hasRemaining()) end += channel.write(buffer, end);
        } catch (IOException e) {
            lost = true;
            throw e;
        } finally {
            buffer.clear();
        }
        if (dropBehind != null) dropBehind.written(end);
    }

    @Override
    public void close() throws IOException {
        try (channel; DropBehind d = dropBehind) {
            write();
        }
    }
}
