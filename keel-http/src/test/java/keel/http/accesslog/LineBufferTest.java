package keel.http.accesslog;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The access lines' encoding: numbers, made ids, JSON strings, and lines longer than the buffer. */
class LineBufferTest {
    private static String taken(LineBuffer line) {
        return taken(line.take());
    }

    private static String taken(AccessLog.Lines lines) {
        return new String(lines.bytes(), 0, lines.length(), StandardCharsets.ISO_8859_1);
    }

    @Test
    void aBlockAtLeastHalfFullIsHandedOverWholeAndTheBufferGoesOnInAnArrayGivenBack() {
        EntryRing<byte[]> spares = new EntryRing<>(2);
        LineBuffer line = new LineBuffer(64, spares);
        line.room(40).ascii("x".repeat(39)).endLine();
        AccessLog.Lines first = line.take();
        assertThat(first.bytes()).as("the buffer's own array, not a copy").hasSize(64);
        assertThat(first.length()).isEqualTo(40);
        assertThat(first.spares()).isSameAs(spares);
        first.written(); // the writer gives it back

        line.room(40).ascii("y".repeat(39)).endLine();
        AccessLog.Lines second = line.take(); // and the buffer takes the array given back
        assertThat(second.bytes()).isNotSameAs(first.bytes()).hasSize(64);
        line.room(40).ascii("z".repeat(39)).endLine();
        AccessLog.Lines third = line.take();
        assertThat(third.bytes()).as("the first block's array, written again").isSameAs(first.bytes());
        assertThat(taken(third)).isEqualTo("z".repeat(39) + "\n");
        assertThat(taken(second)).isEqualTo("y".repeat(39) + "\n");

        line.room(10).ascii("short").endLine();
        AccessLog.Lines small = line.take();
        assertThat(small.bytes()).as("less than half full: a copy of its lines").hasSize(6);
        assertThat(small.spares()).isNull();
    }

    @Test
    void writesDecimalsOfEveryLength() {
        LineBuffer line = new LineBuffer(256, null);
        for (long value : new long[]{0, 7, 10, 99, 100, 123_456_789, 1_000_000_000, Integer.MAX_VALUE, Integer.MAX_VALUE + 1L, Long.MAX_VALUE}) {
            line.decimal(value).put(' ');
        }
        line.endLine();
        assertThat(taken(line)).isEqualTo("0 7 10 99 100 123456789 1000000000 2147483647 2147483648 9223372036854775807 \n");
    }

    @Test
    void everyCountIsWrittenAsItsDecimalDigits() {
        SplittableRandom random = new SplittableRandom(42);
        for (int n = 0; n < 200_000; n++) {
            long value = n < 100_000 ? n : random.nextLong(Integer.MAX_VALUE + 1L) >>> random.nextInt(31);
            LineBuffer line = new LineBuffer(32, null);
            line.decimal(value).endLine();
            assertThat(taken(line)).as("%d", value).isEqualTo(value + "\n");
        }
    }

    @Test
    void aMadeIdIsThePrefixAndTheNumberInHexWithoutLeadingZeros() {
        RequestIds ids = new RequestIds();
        assertThat(ids.prefix()).matches("[0-9a-f]{12}-");
        RequestIds.Made made = ids.newMade();
        LineBuffer line = new LineBuffer(256, null);
        for (long value : new long[]{1, 15, 16, 255, 0x1234abcdL, Long.MAX_VALUE, -1, 2}) {
            assertThat(made.set(value).toString()).isEqualTo(ids.prefix() + Long.toHexString(value));
            assertThat(made.length()).isEqualTo(made.toString().length());
            line.put(made.bytes(), made.length()).put(' ');
        }
        line.endLine();
        assertThat(taken(line)).isEqualTo(ids.prefix() + "1 " + ids.prefix() + "f " + ids.prefix() + "10 " + ids.prefix() + "ff "
                + ids.prefix() + "1234abcd " + ids.prefix() + "7fffffffffffffff " + ids.prefix() + "ffffffffffffffff " + ids.prefix() + "2 \n");
    }

    @Test
    void quotesJsonStringsAndEscapesOnlyWhatNeedsIt() {
        LineBuffer line = new LineBuffer(256, null);
        line.jsonString("/plain?a=1").put(',').jsonString("/q=\"a\\b\"").put(',').jsonString(null).endLine();
        assertThat(taken(line)).isEqualTo("\"/plain?a=1\",\"/q=\\\"a\\\\b\\\"\",null\n");
    }

    @Test
    void aLineLongerThanTheBufferMakesItGrow() {
        LineBuffer line = new LineBuffer(16, null);
        String target = "/" + "x".repeat(40);
        line.room(16).ascii("one").endLine();
        line.room(7 + target.length() + 1).ascii("target=").ascii(target).endLine();
        line.room(6 * target.length() + 8).jsonString(target + "\"").endLine();
        assertThat(taken(line)).isEqualTo("one\ntarget=" + target + "\n\"" + target + "\\\"\"\n");
    }

    @Test
    void takingHandsOverTheWholeLinesOnceAndStartsAfresh() {
        LineBuffer line = new LineBuffer(256, null);
        assertThat(line.take()).as("no line yet").isNull();
        line.ascii("one").endLine();
        line.ascii("two").endLine();
        AccessLog.Lines first = line.take();
        assertThat(first.count()).isEqualTo(2);
        assertThat(new String(first.bytes(), StandardCharsets.ISO_8859_1)).isEqualTo("one\ntwo\n");
        line.ascii("three").endLine();
        assertThat(taken(line)).isEqualTo("three\n");
    }
}
