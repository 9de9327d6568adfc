package keel.http.codec;

import com.code_intelligence.jazzer.junit.FuzzTest;
import keel.http.FuzzInput;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzes gzip body decoding: whatever the bytes, the decoded body is at most the bound, or a
 * {@link GzipDecoder.TooLargeException}, or a {@link ZipException}; decoding the body whole or fed
 * in pieces into reads of any size gives the same; and what it decodes, the JDK's
 * {@link GZIPInputStream} decodes the same. Mode bit 0 gzips the bytes first (a valid body, whose
 * decoding must give them back); bits 1-6 size the reads.
 */
public class GzipDecoderFuzzTest {
    private static final int MAX_SIZE = 2048;

    @FuzzTest
    public void decodesTheSameHoweverTheBytesArrive(byte[] data) throws IOException {
        FuzzInput input = FuzzInput.of(data);
        byte[] body = input.flag(0) ? gzip(input.bytes()) : input.bytes();
        FuzzInput fed = new FuzzInput(input.mode(), body, input.firstSplit() * body.length / Math.max(1, input.bytes().length),
                input.secondSplit() * body.length / Math.max(1, input.bytes().length));
        String whole = decodeWhole(body);
        if (input.flag(0)) {
            String expected = input.bytes().length > MAX_SIZE ? "too large" : HexFormat.of().formatHex(input.bytes());
            assertThat(whole).isEqualTo(expected);
        }
        int readSize = 1 + (input.mode() >>> 1 & 0x3F);
        assertThat(fed.<String>sameForEveryDelivery(reads -> decodeInPieces(reads, readSize))).as("fed in pieces, reads of %d", readSize)
                .isEqualTo(whole);
        if (!whole.equals("too large") && !whole.equals("invalid")) {
            String jdk = jdkDecode(body);
            if (!jdk.equals("invalid")) assertThat(whole).as("decoded as the JDK does").isEqualTo(jdk);
        }
    }

    private static String decodeWhole(byte[] body) throws IOException {
        try {
            byte[] decoded = GzipDecoder.decode(body, MAX_SIZE);
            assertThat(decoded.length).isLessThanOrEqualTo(MAX_SIZE);
            return HexFormat.of().formatHex(decoded);
        } catch (GzipDecoder.TooLargeException e) {
            return "too large";
        } catch (ZipException e) {
            return "invalid";
        }
    }

    private static String decodeInPieces(List<byte[]> pieces, int readSize) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] read = new byte[readSize];
        try (GzipDecoder decoder = new GzipDecoder()) {
            for (byte[] piece : pieces) {
                assertThat(decoder.needsInput()).as("needs input once a read returned 0").isTrue();
                decoder.feed(piece, 0, piece.length);
                int n;
                while ((n = decoder.read(read, 0, read.length)) > 0) {
                    assertThat(n).isLessThanOrEqualTo(readSize);
                    out.write(read, 0, n);
                    if (out.size() > MAX_SIZE) return "too large";
                }
            }
            if (!decoder.isComplete()) return "invalid";
        } catch (ZipException e) {
            return "invalid";
        }
        return HexFormat.of().formatHex(out.toByteArray());
    }

    private static String jdkDecode(byte[] body) {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
            return HexFormat.of().formatHex(in.readNBytes(MAX_SIZE + 1));
        } catch (IOException e) {
            return "invalid";
        }
    }

    private static byte[] gzip(byte[] bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
