package keel.http.accesslog;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The access log's sink: its writes end on whole lines, so a reader following the file never sees half of one. */
class AccessSinkTest {
    /** A block of {@code count} lines of about {@code size} bytes each, in an array with room left after them (as a loop's is). */
    private static AccessLog.Lines block(int first, int count, int size) {
        StringBuilder text = new StringBuilder();
        for (int n = first; n < first + count; n++) {
            String head = "line " + n + " ";
            text.append(head).append("x".repeat(Math.max(0, size - head.length() - 1))).append('\n');
        }
        int length = text.length();
        text.append("not a line: past the block's end");
        return new AccessLog.Lines(text.toString().getBytes(StandardCharsets.US_ASCII), length, count, null);
    }

    @Test
    void everyWriteEndsOnAWholeLineAndTogetherTheyHoldEveryLineInOrder() {
        List<byte[]> writes = new ArrayList<>();
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        StringBuilder expected = new StringBuilder();
        AccessSink sink = AccessSink.stream(recording(writes, all), false, "test");
        int line = 0;
        for (int round = 0; round < 4_000; round++) {
            // Blocks of 1 to 60 lines of 37 to 300 bytes, about 20 MB: at the end of each write, a block that does not fit in what is left.
            int count = 1 + round * 7 % 60;
            int size = 37 + round * 53 % 264;
            AccessLog.Lines block = block(line, count, size);
            expected.append(new String(block.bytes(), 0, block.length(), StandardCharsets.US_ASCII));
            assertThat(sink.add(block)).isZero();
            line += count;
        }
        assertThat(sink.flush()).isZero();
        assertThat(writes).hasSizeGreaterThan(10);
        assertThat(writes).allSatisfy(write -> {
            assertThat(write.length).isLessThanOrEqualTo(AccessSink.WRITE_SIZE);
            assertThat(write[write.length - 1]).as("the last byte of a write").isEqualTo((byte) '\n');
        });
        assertThat(all.toString(StandardCharsets.US_ASCII)).isEqualTo(expected.toString());
    }

    @Test
    void aStreamsBufferStartsSmallAndGrowsToFullSizeWritesWhenLinesComeFaster() {
        List<byte[]> writes = new ArrayList<>();
        AccessSink sink = AccessSink.stream(recording(writes, new ByteArrayOutputStream()), false, "test");
        assertThat(sink.add(block(0, 50, 200))).isZero();
        assertThat(sink.flush()).isZero();
        assertThat(sink.capacity()).isEqualTo(AccessSink.FIRST_STREAM_SIZE);
        assertThat(writes).singleElement().satisfies(write -> assertThat(write).hasSize(50 * 200));

        int line = 50;
        while (writes.size() < 4) {
            assertThat(sink.add(block(line, 50, 200))).isZero();
            line += 50;
        }
        // Grown instead of written until it reached full size: then written only when full, as a file's buffer.
        assertThat(sink.capacity()).isEqualTo(AccessSink.WRITE_SIZE);
        assertThat(writes.subList(1, 4)).allSatisfy(write ->
                assertThat(write.length).isLessThanOrEqualTo(AccessSink.WRITE_SIZE).isGreaterThan(AccessSink.WRITE_SIZE - 50 * 200));
    }

    /** A stream that keeps each write apart, in {@code writes}, and all of them together, in {@code all}. */
    private static OutputStream recording(List<byte[]> writes, ByteArrayOutputStream all) {
        return new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[]{(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                byte[] written = Arrays.copyOfRange(bytes, offset, offset + length);
                writes.add(written);
                all.writeBytes(written);
            }
        };
    }
}
