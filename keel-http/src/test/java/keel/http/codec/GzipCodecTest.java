package keel.http.codec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.ZipException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GzipCodecTest {
    private static final byte[] TEXT = ZipBomb.text(20_000);

    // ---- encoder ------------------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(ints = {1, 6, 9})
    void aWholeBodyIsGzipThatTheJdkDecodes(int level) {
        byte[] gzip = GzipEncoder.gzipIfSmaller(TEXT, level);

        assertThat(gzip).isNotNull();
        assertThat(gzip.length).isLessThan(TEXT.length / 5);
        assertThat(ZipBomb.gunzip(gzip)).isEqualTo(TEXT);
    }

    @Test
    void aBodyThatDoesNotGetSmallerIsNotEncoded() {
        byte[] random = new byte[4096];
        new Random(42).nextBytes(random);

        assertThat(GzipEncoder.gzipIfSmaller(random, 6)).isNull();
        assertThat(GzipEncoder.gzipIfSmaller("tiny".getBytes(StandardCharsets.US_ASCII), 6)).isNull();
        assertThat(GzipEncoder.gzipIfSmaller(new byte[0], 6)).isNull();
    }

    @Test
    void encodingTheSameBodyTwiceGivesTheSameBytes() {
        // HEAD announces the length GET sends: both compress the same body.
        assertThat(GzipEncoder.gzipIfSmaller(TEXT, 6)).isEqualTo(GzipEncoder.gzipIfSmaller(TEXT, 6));
    }

    @Test
    void eachStreamedItemDecodesAsSoonAsItIsEncoded() throws IOException {
        byte[][] items = {"first item\n".getBytes(StandardCharsets.US_ASCII), new byte[0], Arrays.copyOf(TEXT, 5000),
                "last\n".getBytes(StandardCharsets.US_ASCII)};
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        try (GzipEncoder encoder = new GzipEncoder(6); GzipDecoder decoder = new GzipDecoder()) {
            for (byte[] item : items) {
                byte[] encoded = encoder.encode(item);
                all.writeBytes(encoded);
                expected.writeBytes(item);
                decoder.feed(encoded, 0, encoded.length);
                assertThat(readAll(decoder)).as("decoded without the next item").isEqualTo(item);
            }
            byte[] end = encoder.finish();
            all.writeBytes(end);
            decoder.feed(end, 0, end.length);
            assertThat(readAll(decoder)).isEmpty();
            assertThat(decoder.isComplete()).isTrue();
        }
        assertThat(ZipBomb.gunzip(all.toByteArray())).isEqualTo(expected.toByteArray());
    }

    @Test
    void aStreamWithoutItemsIsAnEmptyGzipMember() {
        try (GzipEncoder encoder = new GzipEncoder(6)) {
            assertThat(ZipBomb.gunzip(encoder.finish())).isEmpty();
        }
    }

    @Test
    void levelsOutsideOneToNineAreRefused() {
        assertThatThrownBy(() -> new GzipEncoder(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> GzipEncoder.gzipIfSmaller(TEXT, 10)).isInstanceOf(IllegalArgumentException.class);
    }

    // ---- decoder ------------------------------------------------------------------------------------

    @Test
    void decodesTheJdkEncodingFedInTwoPartsSplitAtEveryOffset() throws IOException {
        byte[] text = Arrays.copyOf(TEXT, 700);
        byte[] gzip = ZipBomb.gzip(text);
        for (int split = 0; split <= gzip.length; split++) {
            try (GzipDecoder decoder = new GzipDecoder()) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                decoder.feed(gzip, 0, split);
                out.writeBytes(readAll(decoder));
                assertThat(decoder.isComplete()).as("split %d", split).isEqualTo(split == gzip.length);
                decoder.feed(gzip, split, gzip.length - split);
                out.writeBytes(readAll(decoder));
                assertThat(decoder.isComplete()).as("split %d", split).isTrue();
                assertThat(out.toByteArray()).as("split %d", split).isEqualTo(text);
            }
        }
    }

    @Test
    void decodesConcatenatedMembersAsOneBody() throws IOException {
        byte[] one = ZipBomb.gzip("one,".getBytes(StandardCharsets.US_ASCII));
        byte[] two = ZipBomb.gzip("two".getBytes(StandardCharsets.US_ASCII));
        byte[] both = Arrays.copyOf(one, one.length + two.length);
        System.arraycopy(two, 0, both, one.length, two.length);

        assertThat(new String(GzipDecoder.decode(both, 100), StandardCharsets.US_ASCII)).isEqualTo("one,two");
    }

    @Test
    void readsEveryOptionalHeaderField() throws IOException {
        byte[] plain = ZipBomb.gzip("hello".getBytes(StandardCharsets.US_ASCII));
        ByteArrayOutputStream gzip = new ByteArrayOutputStream();
        gzip.write(plain, 0, 3);
        gzip.write(2 | 4 | 8 | 16); // FHCRC, FEXTRA, FNAME, FCOMMENT
        gzip.write(plain, 4, 6);
        gzip.writeBytes(new byte[]{3, 0, 'x', 'y', 'z'}); // XLEN = 3
        gzip.writeBytes("name.txt\0".getBytes(StandardCharsets.US_ASCII));
        gzip.writeBytes("a comment\0".getBytes(StandardCharsets.US_ASCII));
        CRC32 headerCrc = new CRC32();
        headerCrc.update(gzip.toByteArray());
        gzip.writeBytes(new byte[]{(byte) headerCrc.getValue(), (byte) (headerCrc.getValue() >>> 8)}); // CRC-16: its two low bytes
        gzip.write(plain, 10, plain.length - 10);

        assertThat(new String(GzipDecoder.decode(gzip.toByteArray(), 100), StandardCharsets.US_ASCII)).isEqualTo("hello");
    }

    @Test
    void refusesWhatIsNotGzipOrFailsItsChecks() {
        byte[] gzip = ZipBomb.gzip(TEXT);
        byte[] badMagic = gzip.clone();
        badMagic[0] = 0x1e;
        byte[] badCrc = gzip.clone();
        badCrc[gzip.length - 8] ^= 1;
        byte[] badSize = gzip.clone();
        badSize[gzip.length - 1] ^= 1;
        byte[] badData = gzip.clone();
        for (int i = 10; i < 40; i++) badData[i] = (byte) 0xff;

        assertThatThrownBy(() -> GzipDecoder.decode(badMagic, 1 << 20)).isInstanceOf(ZipException.class).hasMessageContaining("magic");
        assertThatThrownBy(() -> GzipDecoder.decode(badCrc, 1 << 20)).isInstanceOf(ZipException.class).hasMessageContaining("CRC");
        assertThatThrownBy(() -> GzipDecoder.decode(badSize, 1 << 20)).isInstanceOf(ZipException.class).hasMessageContaining("size");
        assertThatThrownBy(() -> GzipDecoder.decode(badData, 1 << 20)).isInstanceOf(ZipException.class);
        assertThatThrownBy(() -> GzipDecoder.decode(Arrays.copyOf(gzip, gzip.length - 3), 1 << 20))
                .isInstanceOf(ZipException.class).hasMessageContaining("cut short");
        assertThatThrownBy(() -> GzipDecoder.decode(new byte[0], 1 << 20)).isInstanceOf(ZipException.class);
    }

    /** Found by fuzzing: a member that inflates to 2050 bytes, then holds an invalid distance code (its header CRC-16 made right). */
    private static final byte[] VALID_THEN_CORRUPT = HexFormat.of().parseHex(
            "1f8b081a0008007a480000c1c1c1c1c1c1c1c1c1c1b840351f8b081a0038c87a480000c1c1c1c1c1c1c1c1c1c1c1c1c1"
            + "c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1"
            + "c1c1e907c1c1c1c1c1c1c1c1c1c1c1c1c1c141c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c141c1c1"
            + "c1c1c1c1c1c1c1c1c1c1c1c141c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1ffffff04c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1"
            + "57");

    /** "first " in a member whose header carries FHCRC; the last two header bytes are its CRC-16. */
    private static byte[] memberWithHeaderCrc(String crc16) {
        return HexFormat.of().parseHex("1f8b0802000000000003" + crc16 + "4bcb2c2a2e510000" + "fc7af11c" + "06000000");
    }

    @Test
    void aHeaderCrc16IsChecked() throws IOException {
        assertThat(new String(GzipDecoder.decode(memberWithHeaderCrc("a777"), 1024), StandardCharsets.US_ASCII)).isEqualTo("first ");
        // Found by fuzzing: a member whose header CRC-16 is wrong was decoded where the JDK stops.
        assertThatThrownBy(() -> GzipDecoder.decode(memberWithHeaderCrc("a778"), 1024)).isInstanceOf(ZipException.class)
                .hasMessageContaining("header CRC-16");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3, 100, 4096})
    void bytesInflatedBeforeCorruptDataAreReadWhateverTheReadSize(int readSize) {
        byte[] read = new byte[readSize];
        int[] decoded = {0};
        try (GzipDecoder decoder = new GzipDecoder()) {
            decoder.feed(VALID_THEN_CORRUPT, 0, VALID_THEN_CORRUPT.length);
            assertThatThrownBy(() -> {
                for (int n; (n = decoder.read(read, 0, read.length)) > 0; ) decoded[0] += n;
            }).isInstanceOf(ZipException.class).hasMessageContaining("invalid deflate data");
        }

        assertThat(decoded[0]).isEqualTo(2050);
    }

    @Test
    void aBodyPastTheLimitBeforeItsCorruptDataIsTooLarge() {
        assertThatThrownBy(() -> GzipDecoder.decode(VALID_THEN_CORRUPT, 2048)).isInstanceOf(GzipDecoder.TooLargeException.class);
        assertThatThrownBy(() -> GzipDecoder.decode(VALID_THEN_CORRUPT, 2050)).isInstanceOf(ZipException.class)
                .hasMessageContaining("invalid deflate data");
    }

    @Test
    void aBodyOfExactlyTheLimitDecodesAndOneByteMoreDoesNot() throws IOException {
        byte[] gzip = ZipBomb.gzip(TEXT);

        assertThat(GzipDecoder.decode(gzip, TEXT.length)).isEqualTo(TEXT);
        assertThatThrownBy(() -> GzipDecoder.decode(gzip, TEXT.length - 1)).isInstanceOf(GzipDecoder.TooLargeException.class);
    }

    @Test
    void aBodyThatLiesAboutItsSizeStillDecodes() throws IOException {
        byte[] gzip = ZipBomb.gzip(TEXT);
        byte[] understated = gzip.clone();
        understated[gzip.length - 4] = 1; // ISIZE says 1 byte (and the check then fails: it is a lie)
        understated[gzip.length - 3] = 0;
        understated[gzip.length - 2] = 0;
        understated[gzip.length - 1] = 0;

        assertThatThrownBy(() -> GzipDecoder.decode(understated, 1 << 20)).isInstanceOf(ZipException.class).hasMessageContaining("size");
        assertThat(GzipDecoder.decode(gzip, 1 << 20)).isEqualTo(TEXT);
    }

    @Test
    void theTestBombIsValidGzip() {
        byte[] bomb = ZipBomb.zeros(3);

        assertThat(bomb.length).isLessThan(8 * 1024);
        assertThat(ZipBomb.gunzip(bomb)).hasSize(3 << 20).containsOnly(0);
    }

    /**
     * 200 MiB of zeros against a 1 MiB limit: decoding stops at the limit, and the thread allocates
     * about the limit (the output), never the 200 MiB.
     */
    @Test
    void aZipBombStopsAtTheLimitWithoutAllocatingWhatItInflatesTo() {
        byte[] bomb = ZipBomb.zeros(200);
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();

        assertThatThrownBy(() -> GzipDecoder.decode(bomb, 1 << 20)).isInstanceOf(GzipDecoder.TooLargeException.class);

        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(bomb.length).isLessThan(256 * 1024);
        assertThat(allocated).as("bytes allocated while decoding").isLessThan(2L << 20);
    }

    private static byte[] readAll(GzipDecoder decoder) throws ZipException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] piece = new byte[333];
        int n;
        while ((n = decoder.read(piece, 0, piece.length)) > 0) out.write(piece, 0, n);
        return out.toByteArray();
    }
}
