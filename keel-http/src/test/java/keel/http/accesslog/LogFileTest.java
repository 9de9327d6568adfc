package keel.http.accesslog;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The access log's file, through real files: every byte lands once, in order, and its pages leave the page cache once on the disk. */
class LogFileTest {
    /** Lines of 1 to 300 bytes, so writes end anywhere in a page. */
    private static String line(int n) {
        return "line " + n + " " + "x".repeat((n * 37) % 300) + "\n";
    }

    /** Puts {@code lines} lines from {@code first}, writing whenever the buffer is full and after the last; checks the file after each write. */
    private static void append(LogFile log, Path file, StringBuilder expected, int first, int lines) throws IOException {
        for (int n = first; n < first + lines; n++) {
            byte[] bytes = line(n).getBytes(StandardCharsets.US_ASCII);
            if (log.buffer().remaining() < bytes.length) {
                log.write();
                assertThat(Files.readString(file)).isEqualTo(expected.toString());
            }
            log.buffer().put(bytes);
            expected.append(line(n));
        }
        log.write();
        assertThat(Files.readString(file)).isEqualTo(expected.toString());
    }

    /** Empties the file under the writer, as logrotate's {@code copytruncate} does. */
    private static void truncate(Path file, StringBuilder expected) throws IOException {
        try (FileChannel rotation = FileChannel.open(file, StandardOpenOption.WRITE)) {
            rotation.truncate(0);
        }
        expected.setLength(0);
    }

    @Test
    void linesAreAppendedAfterWhatTheFileHeldAndNothingElseIsEverInIt(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("access.log");
        Files.writeString(file, "earlier line\n");
        StringBuilder expected = new StringBuilder("earlier line\n");
        try (LogFile log = LogFile.open(file, 8192, true)) {
            append(log, file, expected, 0, 2_000);
            append(log, file, expected, 2_000, 1);
            log.write(); // nothing new: nothing written
        }
        assertThat(Files.readString(file)).isEqualTo(expected.toString());
        try (LogFile reopened = LogFile.open(file, 4096, true)) { // starts from the end
            append(reopened, file, expected, 3_000, 300);
        }
        assertThat(Files.readString(file)).isEqualTo(expected.toString());
    }

    @Test
    void aFileTruncatedUnderTheWriterGetsTheNextLinesFromItsNewEnd(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("access.log");
        StringBuilder expected = new StringBuilder();
        try (LogFile log = LogFile.open(file, 8192, true)) {
            append(log, file, expected, 0, 100);
            truncate(file, expected);
            append(log, file, expected, 100, 100);
            Files.writeString(file, "written by someone else\n", StandardOpenOption.APPEND);
            expected.append("written by someone else\n");
            append(log, file, expected, 200, 10);
        }
        assertThat(Files.readString(file)).isEqualTo(expected.toString());
    }

    @Test
    void pagesOnTheDiskLeaveThePageCacheWhileTheLastStepsStay(@TempDir Path dir) throws IOException {
        assumeTrue(System.getProperty("os.name").equals("Linux"), "drop-behind is for Linux");
        Path file = dir.resolve("access.log");
        try (LogFile log = LogFile.open(file, 64 * 1024, true)) {
            assertThat(log.dropBehind()).as("native access is enabled for keel.http in the tests, as in bin/keel").isNotNull();
            fill(log, 3 * DropBehind.STEP_BYTES);
            forceToDisk(file); // the first three steps are on the disk: dropping them cannot find a page still being written
            fill(log, 2 * DropBehind.STEP_BYTES);
            awaitSynced(log.dropBehind(), 5L * DropBehind.STEP_BYTES);
        }
        long written = 5L * DropBehind.STEP_BYTES;
        assertThat(Files.size(file)).isEqualTo(written);
        assertThat(residentMiB(file, 0, 3L * DropBehind.STEP_BYTES)).as("MiB of the first three steps in the page cache").isZero();
        assertThat(residentMiB(file, 4L * DropBehind.STEP_BYTES, written)).as("MiB of the last step in the page cache").isEqualTo(DropBehind.STEP_BYTES >> 20);
    }

    @Test
    void withoutDropBehindThePagesStayInThePageCache(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("access.log");
        try (LogFile log = LogFile.open(file, 64 * 1024, false)) {
            assertThat(log.dropBehind()).isNull();
            fill(log, 3 * DropBehind.STEP_BYTES);
            forceToDisk(file);
            fill(log, 2 * DropBehind.STEP_BYTES);
        }
        assertThat(residentMiB(file, 0, 5L * DropBehind.STEP_BYTES)).isEqualTo(5 * DropBehind.STEP_BYTES >> 20);
    }

    /** Writes {@code bytes} lines of 64 bytes through {@code log}, without reading the file (which would bring its pages back). */
    private static void fill(LogFile log, int bytes) throws IOException {
        byte[] line = ("x".repeat(63) + "\n").getBytes(StandardCharsets.US_ASCII);
        for (int n = 0; n < bytes; n += line.length) {
            if (log.buffer().remaining() < line.length) log.write();
            log.buffer().put(line);
        }
        log.write();
    }

    /** Waits for the drop-behind thread to have handed the steps up to {@code end} to the disk (and dropped the ones two behind). */
    private static void awaitSynced(DropBehind dropBehind, long end) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (dropBehind.synced() < end) {
            assertThat(System.nanoTime() - deadline).as("steps handed to the disk in 30 s: up to %d of %d", dropBehind.synced(), end).isNegative();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private static void forceToDisk(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            channel.force(false);
        }
    }

    /** The MiB of {@code file} from {@code from} to {@code to} (whole MiB) all of whose pages are in the page cache ({@code mincore}, through {@link MappedByteBuffer#isLoaded}: mapping reads nothing). */
    private static int residentMiB(Path file, long from, long to) throws IOException {
        int resident = 0;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            for (long at = from; at < to; at += 1 << 20) {
                MappedByteBuffer mib = channel.map(FileChannel.MapMode.READ_ONLY, at, 1 << 20);
                if (mib.isLoaded()) resident++;
            }
        }
        return resident;
    }
}
