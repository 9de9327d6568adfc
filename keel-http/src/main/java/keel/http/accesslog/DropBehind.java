package keel.http.accesslog;

import keel.core.log.Log;
import keel.core.net.NativeCalls;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Drops the pages of a file that only grows from the page cache once they are on the disk: a log
 * written at a hundred megabytes a second otherwise fills the page cache with pages nobody reads
 * again, and its writer pays for every new page it copies into (on a virtual machine, memory the
 * guest has not touched lately is faulted in by the host during that copy: 1.5 ns a byte here,
 * against 0.3 to 0.6 for pages the kernel has just freed, which this makes it reuse).
 * <p>
 * Every {@value #STEP_BYTES} bytes written, the step just finished is handed to the disk
 * ({@code sync_file_range(SYNC_FILE_RANGE_WRITE)}, which starts the write-back) and the steps two and
 * three behind it are dropped ({@code posix_fadvise(POSIX_FADV_DONTNEED)}, which leaves any page still
 * being written). Both run on a thread of their own, {@code keel-access-log-drop}, since either may
 * wait for the disk (up to 0.4 s on a busy machine), and the writer must not: it only publishes how far
 * it has written. A disk that cannot keep up leaves pages in the cache, as without this. A reader
 * following the file's end ({@code tail -f}) reads pages the cache still holds.
 * <p>
 * Linux only (x86-64 and AArch64, whose constants these are), through the FFM API on a read-only
 * descriptor of its own, and only when native access is enabled for Keel's module ({@code bin/keel}
 * enables it): {@link #open} returns null otherwise, says why in the log, and the file is written through the page cache as
 * usual. {@link #from}, {@link #written} and {@link #close}: the file's writer thread only.
 */
final class DropBehind implements AutoCloseable {
    private static final Log LOG = Log.of(DropBehind.class);
    static final int STEP_BYTES = 4 * 1024 * 1024;
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;
    private static final int SYNC_FILE_RANGE_WRITE = 2;
    private static final int POSIX_FADV_DONTNEED = 4;

    /** How far the writer has written, from where its steps count ({@code base}: the file's end when it opened, or moved there). */
    private record Progress(long base, long end) {
    }

    /** Closed by the thread, when it ends: never while it may still use it. */
    private final int fd;
    private final Thread thread;
    private volatile Progress progress;
    private volatile boolean closed;
    /** Where the steps handed to the disk end; the thread's, read by tests. */
    private volatile long synced;
    /** The writer's: the end past which it next wakes the thread (a step finished). */
    private long wakeAt;

    private DropBehind(int fd, long from) {
        this.fd = fd;
        from(from);
        this.thread = Thread.ofPlatform().name("keel-access-log-drop").daemon(true).start(this::dropUntilClosed);
    }

    /**
     * Drops {@code file}'s pages behind a writer that starts at {@code from}; null, said once in the
     * log, where that is not possible (not Linux on x86-64 or AArch64, no native access for this
     * module, or the file cannot be opened for it).
     */
    static DropBehind open(Path file, long from) {
        String why = NativeCalls.unavailable(DropBehind.class.getModule());
        if (why == null) {
            try (Arena arena = Arena.ofConfined()) {
                int fd = (int) Native.OPEN.invokeExact(arena.allocateFrom(file.toString()), O_RDONLY | O_CLOEXEC);
                if (fd >= 0) return new DropBehind(fd, from);
                why = "open failed";
            } catch (Throwable e) {
                why = e.toString();
            }
        }
        LOG.info("access_log_drop_behind_off", "file", file, "reason", why);
        return null; // the page cache keeps the pages, as without this
    }

    /** The writer moved to {@code offset} (the file was truncated, or written by someone else): steps count from there. */
    void from(long offset) {
        progress = new Progress(offset, offset);
        wakeAt = offset + STEP_BYTES;
    }

    /** The file has been written up to {@code end}; wakes the thread when a step is finished. Never waits. */
    void written(long end) {
        Progress now = new Progress(progress.base(), end);
        progress = now;
        if (end >= wakeAt) {
            wakeAt = end + STEP_BYTES - (end - now.base()) % STEP_BYTES;
            LockSupport.unpark(thread);
        }
    }

    /** Where the steps handed to the disk end, from the base the writer started at (or last moved to). */
    long synced() {
        return synced;
    }

    /** Ends the thread, which closes the descriptor; steps not handed over yet stay in the page cache. */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
    }

    private void dropUntilClosed() {
        long base = Long.MIN_VALUE;
        long at = 0;
        try {
            while (!closed) {
                Progress now = progress;
                if (now.base() != base) {
                    base = now.base();
                    at = base;
                    synced = at;
                }
                while (now.end() - at >= STEP_BYTES && !closed) {
                    call(Native.SYNC_FILE_RANGE, at, STEP_BYTES, SYNC_FILE_RANGE_WRITE);
                    at += STEP_BYTES;
                    long dropFrom = Math.max(base, at - 4L * STEP_BYTES);
                    long dropTo = at - 2L * STEP_BYTES;
                    if (dropTo > dropFrom) call(Native.FADVISE, dropFrom, dropTo - dropFrom, POSIX_FADV_DONTNEED);
                    synced = at;
                }
                LockSupport.park(this);
            }
        } finally {
            try {
                int ignored = (int) Native.CLOSE.invokeExact(fd);
            } catch (Throwable e) {
                // a descriptor that cannot be closed is gone with the process
            }
        }
    }

    /** A failure leaves the pages in the cache, as without this: nothing to report. */
    private void call(MethodHandle function, long offset, long length, int flags) {
        try {
            int ignored = (int) function.invokeExact(fd, offset, length, flags);
        } catch (Throwable e) {
            // the same: pages left in the cache
        }
    }

    /** The C functions, linked on first use (never where {@link #open} finds native calls unavailable). */
    private static final class Native {
        static final MethodHandle OPEN = function("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        static final MethodHandle SYNC_FILE_RANGE = function("sync_file_range", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
        static final MethodHandle FADVISE = function("posix_fadvise", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
        static final MethodHandle CLOSE = function("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

        private static MethodHandle function(String name, FunctionDescriptor descriptor) {
            Linker linker = Linker.nativeLinker();
            return linker.downcallHandle(linker.defaultLookup().findOrThrow(name), descriptor);
        }
    }
}
