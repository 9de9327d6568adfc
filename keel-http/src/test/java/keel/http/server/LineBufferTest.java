package keel.http.server;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The access log writer's encoding: numbers, hex ids, JSON strings, and lines longer than the buffer. */
class LineBufferTest {
    private final ByteArrayOutputStream sink = new ByteArrayOutputStream();

    private String written(LineBuffer line) throws IOException {
        line.flush();
        return sink.toString(StandardCharsets.ISO_8859_1);
    }

    @Test
    void writesDecimalsOfEveryLength() throws IOException {
        LineBuffer line = new LineBuffer(sink, 64);
        for (long value : new long[]{0, 7, 10, 99, 100, 123_456_789, 1_000_000_000, Integer.MAX_VALUE, Integer.MAX_VALUE + 1L, Long.MAX_VALUE}) {
            line.decimal(value).put(' ');
        }
        assertThat(written(line)).isEqualTo("0 7 10 99 100 123456789 1000000000 2147483647 2147483648 9223372036854775807 ");
    }

    @Test
    void writesHexWithoutLeadingZerosAsMadeIdsDo() throws IOException {
        LineBuffer line = new LineBuffer(sink, 64);
        RequestIds ids = new RequestIds();
        for (long value : new long[]{1, 15, 16, 255, 0x1234abcdL, Long.MAX_VALUE, -1}) {
            line.hex(value).put(' ');
            assertThat(ids.appendMade(new StringBuilder(), value).toString()).isEqualTo(ids.prefix() + Long.toHexString(value));
        }
        assertThat(written(line)).isEqualTo("1 f 10 ff 1234abcd 7fffffffffffffff ffffffffffffffff ");
        assertThat(ids.prefix()).matches("[0-9a-f]{12}-");
    }

    @Test
    void quotesJsonStringsAndEscapesOnlyWhatNeedsIt() throws IOException {
        LineBuffer line = new LineBuffer(sink, 64);
        line.jsonString("/plain?a=1").put(',').jsonString("/q=\"a\\b\"").put(',').jsonString(null);
        assertThat(written(line)).isEqualTo("\"/plain?a=1\",\"/q=\\\"a\\\\b\\\"\",null");
    }

    @Test
    void aLineLongerThanTheBufferGoesToTheSinkInPieces() throws IOException {
        LineBuffer line = new LineBuffer(sink, 16);
        String target = "/" + "x".repeat(40);
        line.startLine(16).ascii("target=").ascii(target).endLine();
        line.startLine(16).jsonString(target + "\"").endLine();
        assertThat(written(line)).isEqualTo("target=" + target + "\n\"" + target + "\\\"\"\n");
    }

    @Test
    void aFailedWriteLosesTheWholeLinesHeld() throws IOException {
        LineBuffer line = new LineBuffer(sink, 256);
        line.startLine(16).ascii("one").endLine();
        line.startLine(16).ascii("two").endLine();
        assertThat(line.discard()).isEqualTo(2);
        line.startLine(16).ascii("three").endLine();
        assertThat(written(line)).isEqualTo("three\n");
    }
}
