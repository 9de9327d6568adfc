package keel.http;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fuzz test's input, read from the fuzzer's bytes: the first byte is a mode the target may use
 * (which side, which options), the next two choose where a socket splits the rest (each as a
 * fraction n/256 of its length), and the rest is what arrives. Seed files follow the same layout:
 * three bytes, then a request, a response or frames.
 */
public record FuzzInput(int mode, byte[] bytes, int firstSplit, int secondSplit) {
    private static final int HEADER = 3;

    public static FuzzInput of(byte[] data) {
        byte[] bytes = data.length <= HEADER ? new byte[0] : Arrays.copyOfRange(data, HEADER, data.length);
        int a = data.length > 1 ? at(data[1], bytes.length) : 0;
        int b = data.length > 2 ? at(data[2], bytes.length) : bytes.length;
        return new FuzzInput(data.length > 0 ? data[0] & 0xFF : 0, bytes, Math.min(a, b), Math.max(a, b));
    }

    private static int at(byte fraction, int length) {
        return (int) ((fraction & 0xFFL) * (length + 1) >>> 8);
    }

    /** True when bit {@code bit} (0..7) of the mode byte is set. */
    public boolean flag(int bit) {
        return (mode >>> bit & 1) != 0;
    }

    /**
     * Three ways the bytes may arrive: whole, in two reads split at the first point, in three reads
     * split at both. A codec must report the same whatever the way.
     */
    public List<List<byte[]>> deliveries() {
        return List.of(
                List.of(bytes),
                List.of(range(0, firstSplit), range(firstSplit, bytes.length)),
                List.of(range(0, firstSplit), range(firstSplit, secondSplit), range(secondSplit, bytes.length)));
    }

    /** What {@code decode} reports for the bytes, asserted to be the same for each of the {@link #deliveries()}. */
    public <T> T sameForEveryDelivery(Function<List<byte[]>, T> decode) {
        T whole = null;
        for (List<byte[]> reads : deliveries()) {
            T reported = decode.apply(reads);
            if (whole == null) whole = reported;
            else assertThat(reported).as("split at %d and %d", firstSplit, secondSplit).isEqualTo(whole);
        }
        return whole;
    }

    private byte[] range(int from, int to) {
        return Arrays.copyOfRange(bytes, from, to);
    }
}
