package keel.http.codec;

import com.code_intelligence.jazzer.junit.FuzzTest;
import keel.http.FuzzInput;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzes the chunked transfer decoding alone: whatever the bytes, it yields data and an end, or a 400
 * or 431; the bytes it leaves buffered stay under its line and trailer bounds; and the data, the
 * bytes consumed and the outcome are the same whether the bytes arrive whole or split.
 */
public class ChunkedDecoderFuzzTest {
    private static final int MAX_TRAILER = 100;

    @FuzzTest
    public void decodesTheSameHoweverTheBytesArrive(byte[] data) {
        FuzzInput input = FuzzInput.of(data);
        input.sameForEveryDelivery(reads -> decode(reads, input.bytes().length));
    }

    /** The body's data and how the decoding ended, for bytes delivered in {@code reads}. */
    private static String decode(List<byte[]> reads, int total) {
        ChunkedDecoder decoder = new ChunkedDecoder(MAX_TRAILER);
        ByteBuffer buffer = ByteBuffer.allocate(total + 16);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int consumed = 0;
        for (byte[] read : reads) {
            buffer.put(read).flip();
            while (true) {
                int before = buffer.remaining();
                int ready;
                try {
                    ready = decoder.next(buffer);
                } catch (BadMessage bad) {
                    assertThat(bad.status).as(bad.getMessage()).isIn(400, 431);
                    return hex(body) + " failed " + bad.status;
                }
                consumed += before - buffer.remaining();
                if (ready == ChunkedDecoder.END) return hex(body) + " end after " + consumed + " bytes";
                assertThat(ready).isBetween(0, buffer.remaining());
                assertThat((long) ready).isLessThanOrEqualTo(decoder.chunkRemaining());
                if (ready == 0) {
                    assertThat(buffer.remaining()).as("unconsumed bytes").isLessThanOrEqualTo(Math.max(ChunkedDecoder.MAX_CHUNK_LINE, MAX_TRAILER));
                    break;
                }
                byte[] chunk = new byte[ready];
                buffer.get(chunk);
                body.writeBytes(chunk);
                decoder.consumed(ready);
                consumed += ready;
            }
            buffer.compact();
        }
        return hex(body) + " incomplete";
    }

    private static String hex(ByteArrayOutputStream bytes) {
        return HexFormat.of().formatHex(bytes.toByteArray());
    }
}
