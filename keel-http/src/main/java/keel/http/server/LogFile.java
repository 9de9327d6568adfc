package keel.http.server;

import com.sun.nio.file.ExtendedOpenOption;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A log file that only grows, written from a buffer of its own: through the page cache, or, when
 * asked ({@code log.access-file-direct}) and the file system allows it, around it. Then the whole
 * blocks of a large write (half the buffer or more) go straight to the disk ({@code O_DIRECT}, from a
 * block-aligned buffer) and only the last, partial block through the page cache, so the file never holds padding and always ends at the last byte
 * written. A log written at a hundred megabytes a second otherwise fills the page cache with pages
 * nobody reads again, each one copied in (and, on a virtual machine, often first faulted in) by the
 * writing thread; the price is a writer that waits for the disk. Where {@code O_DIRECT} is refused,
 * every byte goes through the page cache.
 * <p>
 * It is the file's one writer: writes are positional, from where the file ended when it was opened.
 * When the file's size is not what this writer left (it was truncated, as by {@code logrotate}'s
 * {@code copytruncate}, or written by someone else), the next write goes to its new end. One thread.
 */
final class LogFile implements AutoCloseable {
    private final FileChannel cached;
    /** The same file opened with {@code O_DIRECT}, or null. */
    private final FileChannel direct;
    /** What offsets, lengths and the buffer's address are multiples of for {@link #direct}; 1 without it. */
    private final int block;
    /**
     * The bytes from file offset {@link #start} on: the first {@link #kept} are in the file already, the
     * rest are new, at most {@link #capacity}.
     */
    private final ByteBuffer buffer;
    private final int capacity;
    /**
     * The fewest new bytes written straight to the disk, half the buffer: fewer, a trickle of lines, go
     * through the page cache, since a write that waits for the disk costs more than the copies it saves
     * (a direct write every 10 ms at 20 MB/s cost the writer more CPU a line than the page cache did).
     */
    private final int directMin;
    private long start;
    private int kept;
    /** A write failed: where the file ends is not known. */
    private boolean lost;

    private LogFile(FileChannel cached, FileChannel direct, int block, int capacity) {
        this.cached = cached;
        this.direct = direct;
        this.block = block;
        this.capacity = capacity;
        this.directMin = capacity / 2;
        // Room for a partial block kept at the start, beside capacity new bytes, from an aligned address.
        this.buffer = ByteBuffer.allocateDirect(capacity + 2 * block).alignedSlice(block).limit(capacity);
    }

    /** Opens {@code file} for appending (created when missing), with room for {@code capacity} new bytes between writes. */
    static LogFile open(Path file, int capacity) throws IOException {
        return open(file, capacity, true);
    }

    /** {@link #open(Path, int)}, through the page cache only unless {@code tryDirect}. */
    static LogFile open(Path file, int capacity, boolean tryDirect) throws IOException {
        FileChannel cached = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
        FileChannel direct = null;
        int block = 1;
        if (tryDirect) {
            try {
                block = Math.toIntExact(Files.getFileStore(file).getBlockSize());
                direct = FileChannel.open(file, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT);
            } catch (IOException | UnsupportedOperationException | ArithmeticException e) {
                block = 1; // no O_DIRECT here: the page cache takes every byte
            }
        }
        LogFile log = new LogFile(cached, direct, block, capacity);
        try {
            log.moveToEnd();
        } catch (IOException e) {
            log.close();
            throw e;
        }
        return log;
    }

    /** True when whole blocks bypass the page cache. */
    boolean direct() {
        return direct != null;
    }

    /** Where new bytes are put: {@link #write} before it has no room left. */
    ByteBuffer buffer() {
        return buffer;
    }

    /** True when nothing new is held. */
    boolean isEmpty() {
        return buffer.position() == kept;
    }

    /**
     * Writes the new bytes: the whole blocks held straight to the disk when they are many, the rest
     * through the page cache.
     * A partial block stays held, to be written again whole once it fills. A failed write drops the new
     * bytes; the next one starts from wherever the file then ends.
     */
    void write() throws IOException {
        if (isEmpty()) return;
        try {
            if (lost || cached.size() != start + kept) moveToEnd(); // truncated, or written by someone else, since
            writeHeld();
        } catch (IOException e) {
            buffer.position(kept);
            lost = true;
            throw e;
        }
    }

    private void writeHeld() throws IOException {
        int length = buffer.position();
        int whole = direct == null ? length : length - length % block;
        int from = kept;
        if (direct != null && length - kept >= directMin && whole > 0) {
            ByteBuffer blocks = buffer.duplicate().position(0).limit(whole);
            while (blocks.hasRemaining()) direct.write(blocks, start + blocks.position());
            from = Math.max(whole, kept);
        }
        if (length > from) {
            ByteBuffer tail = buffer.duplicate().position(from).limit(length);
            while (tail.hasRemaining()) cached.write(tail, start + tail.position());
        }
        start += whole;
        kept = length - whole;
        buffer.limit(length).position(whole).compact().limit(kept + capacity).position(kept);
    }

    /**
     * Starts from the file's end: reads its last partial block into the buffer's start, ahead of the
     * new bytes held (which a {@link #write} then puts after it).
     */
    private void moveToEnd() throws IOException {
        byte[] fresh = new byte[buffer.position() - kept];
        buffer.get(kept, fresh);
        long size = cached.size();
        lost = false;
        start = size - size % block;
        kept = (int) (size - start);
        ByteBuffer partial = buffer.clear().limit(kept);
        while (partial.hasRemaining()) {
            if (cached.read(partial, start + partial.position()) < 0) throw new IOException("the file shrank while it was read");
        }
        buffer.limit(kept + capacity).position(kept).put(fresh);
    }

    @Override
    public void close() throws IOException {
        try (cached; FileChannel d = direct) {
            write();
        }
    }
}
