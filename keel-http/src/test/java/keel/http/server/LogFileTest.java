package keel.http.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The access log's file, through real files: every byte lands once, in order, and the file never holds padding. */
class LogFileTest {
    /** Lines of 1 to 300 bytes, so writes end anywhere in a block. */
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
            if (Set.of("ext4", "xfs", "btrfs").contains(Files.getFileStore(dir).type())) {
                assertThat(log.direct()).as("whole blocks bypass the page cache on " + Files.getFileStore(dir).type()).isTrue();
            }
            append(log, file, expected, 0, 2_000);
            append(log, file, expected, 2_000, 1); // a write of one short line, into the block held
            assertThat(log.isEmpty()).isTrue();
            log.write(); // nothing new: nothing written
        }
        assertThat(Files.readString(file)).isEqualTo(expected.toString());
        try (LogFile reopened = LogFile.open(file, 4096, true)) { // starts from the end, mid-block
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
    void withoutDirectWritesEveryByteGoesThroughThePageCache(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("access.log");
        Files.writeString(file, "earlier line\n");
        StringBuilder expected = new StringBuilder("earlier line\n");
        try (LogFile log = LogFile.open(file, 8192, false)) { // as where the file system refuses O_DIRECT
            assertThat(log.direct()).isFalse();
            append(log, file, expected, 0, 500);
            truncate(file, expected);
            append(log, file, expected, 500, 100);
        }
        assertThat(Files.readString(file)).isEqualTo(expected.toString());
    }
}
