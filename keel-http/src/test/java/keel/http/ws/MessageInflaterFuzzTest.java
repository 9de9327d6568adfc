package keel.http.ws;

import com.code_intelligence.jazzer.junit.FuzzTest;
import keel.http.FuzzInput;

import java.util.Arrays;
import java.util.List;
import java.util.zip.DataFormatException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzes the permessage-deflate inflater. Mode bit 0 clear: the bytes are taken as up to three
 * compressed messages in a row; each inflates to at most the bound, or reports that it is larger
 * (null) or not DEFLATE, and never produces more than one byte past the bound. Bit 0 set: the three
 * pieces are messages compressed by {@link MessageDeflater} (level from bits 1-3, bit 4: compressor
 * reset after each message, bit 5: each message sent as two frames), and inflate back to themselves.
 */
public class MessageInflaterFuzzTest {
    private static final int MAX_SIZE = 1024;

    @FuzzTest
    public void inflatesWithinTheBound(byte[] data) {
        FuzzInput input = FuzzInput.of(data);
        List<byte[]> messages = input.deliveries().getLast();
        if (input.flag(0)) roundTrip(input, messages);
        else inflateRaw(messages);
    }

    private static void inflateRaw(List<byte[]> messages) {
        MessageInflater inflater = new MessageInflater(MAX_SIZE, false);
        try {
            for (byte[] message : messages) {
                byte[] inflated = inflater.inflate(message, message.length);
                assertThat(inflater.lastProduced()).isLessThanOrEqualTo(MAX_SIZE + 1);
                if (inflated == null) return; // larger than the bound: the session fails
                assertThat(inflated.length).isLessThanOrEqualTo(MAX_SIZE);
            }
        } catch (DataFormatException e) {
            // not DEFLATE: the session fails with 1002
        } finally {
            inflater.release();
        }
    }

    private static void roundTrip(FuzzInput input, List<byte[]> messages) {
        boolean reset = input.flag(4);
        MessageDeflater deflater = new MessageDeflater(1 + (input.mode() >>> 1 & 7), reset);
        MessageInflater inflater = new MessageInflater(MAX_SIZE, reset);
        try {
            for (byte[] message : messages) {
                byte[] compressed = compress(deflater, message, input.flag(5));
                byte[] inflated = inflater.inflate(compressed, compressed.length);
                if (message.length > MAX_SIZE) {
                    assertThat(inflated).as("a message past the bound").isNull();
                    return;
                }
                assertThat(inflated).isEqualTo(message);
            }
        } catch (DataFormatException e) {
            throw new AssertionError("the inflater refused what the deflater made", e);
        } finally {
            deflater.release();
            inflater.release();
        }
    }

    /** A message's compressed frame payloads, one after the other, as the decoder gathers them. */
    private static byte[] compress(MessageDeflater deflater, byte[] message, boolean twoFrames) {
        if (!twoFrames) return deflater.compress(message, true);
        int half = message.length / 2;
        byte[] first = deflater.compress(Arrays.copyOfRange(message, 0, half), false);
        byte[] last = deflater.compress(Arrays.copyOfRange(message, half, message.length), true);
        byte[] both = Arrays.copyOf(first, first.length + last.length);
        System.arraycopy(last, 0, both, first.length, last.length);
        return both;
    }
}
