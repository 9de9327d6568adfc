package keel.http.ws;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static keel.http.ws.FrameDecoder.BINARY;
import static keel.http.ws.FrameDecoder.CLOSE;
import static keel.http.ws.FrameDecoder.CONTINUATION;
import static keel.http.ws.FrameDecoder.PING;
import static keel.http.ws.FrameDecoder.PONG;
import static keel.http.ws.FrameDecoder.TEXT;
import static org.assertj.core.api.Assertions.assertThat;

class FrameDecoderTest {
    private static final int MAX_FRAME = 1 << 20;
    private static final int MAX_MESSAGE = 4 << 20;

    /** Decodes {@code input} delivered in two parts split at {@code split}; stops at a failure. */
    private static List<Decoded> decodeSplit(FrameDecoder decoder, byte[] input, int split) {
        List<Decoded> results = new ArrayList<>();
        for (int[] part : new int[][]{{0, split}, {split, input.length}}) {
            ByteBuffer buffer = ByteBuffer.wrap(input, part[0], part[1] - part[0]);
            while (true) {
                Decoded result = decoder.decode(buffer);
                if (result instanceof Decoded.NeedMore) break;
                results.add(result);
                if (result instanceof Decoded.Failed) return results;
            }
            assertThat(buffer.hasRemaining()).as("NeedMore leaves nothing unread").isFalse();
        }
        return results;
    }

    /** Decodes on a server at every split offset; every split must give the same results, which are returned. */
    private static List<Decoded> decodeAtEveryOffset(byte[] input) {
        List<Decoded> first = null;
        for (int split = 0; split <= input.length; split++) {
            List<Decoded> results = decodeSplit(new FrameDecoder(true, MAX_FRAME, MAX_MESSAGE), input, split);
            if (first == null) first = results;
            assertThat(results).as("split at %d", split).usingRecursiveFieldByFieldElementComparator().isEqualTo(first);
        }
        return first;
    }

    private static Decoded.Failed failure(byte[] input) {
        return failure(() -> new FrameDecoder(true, MAX_FRAME, MAX_MESSAGE), input);
    }

    /** The failure {@code input} ends in, the same at every split offset. */
    private static Decoded.Failed failure(Supplier<FrameDecoder> decoders, byte[] input) {
        Decoded.Failed first = null;
        for (int split = 0; split <= input.length; split++) {
            List<Decoded> results = decodeSplit(decoders.get(), input, split);
            assertThat(results).as("split at %d", split).isNotEmpty();
            assertThat(results.getLast()).as("split at %d", split).isInstanceOf(Decoded.Failed.class);
            if (first == null) first = (Decoded.Failed) results.getLast();
            assertThat(results.getLast()).as("split at %d", split).isEqualTo(first);
        }
        return first;
    }

    private static byte[] bytes(int length) {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++) data[i] = (byte) (i * 31 + 7);
        return data;
    }

    @Test
    void decodesTheMaskedHelloOfRfc6455() {
        byte[] rfcExample = {(byte) 0x81, (byte) 0x85, 0x37, (byte) 0xfa, 0x21, 0x3d, 0x7f, (byte) 0x9f, 0x4d, 0x51, 0x58};
        assertThat(decodeAtEveryOffset(rfcExample)).containsExactly(new Decoded.Text("Hello"));
    }

    @Test
    void reassemblesAFragmentedMessageWithControlFramesBetweenItsFragments() {
        byte[] input = Frames.of()
                .masked(false, TEXT, "Hel")
                .masked(true, PING, "are you there")
                .masked(false, CONTINUATION, "lo, ")
                .masked(true, PONG, "")
                .masked(true, CONTINUATION, "world")
                .masked(true, BINARY, new byte[]{1, 2, 3})
                .build();
        List<Decoded> results = decodeAtEveryOffset(input);
        assertThat(results).hasSize(4);
        assertThat(((Decoded.Ping) results.get(0)).data()).asString().isEqualTo("are you there");
        assertThat(((Decoded.Pong) results.get(1)).data()).isEmpty();
        assertThat(results.get(2)).isEqualTo(new Decoded.Text("Hello, world"));
        assertThat(((Decoded.Binary) results.get(3)).data()).containsExactly(1, 2, 3);
    }

    @Test
    void decodesSixteenAndSixtyFourBitLengths() {
        byte[] medium = bytes(300);
        byte[] large = bytes(70_000);
        byte[] input = Frames.of().masked(true, BINARY, medium).masked(true, BINARY, large).build();
        for (int split : new int[]{0, 1, 2, 3, 4, 5, 6, 7, 8, 305, 306, 307, 310, 313, 314, 10_000, input.length - 1, input.length}) {
            List<Decoded> results = decodeSplit(new FrameDecoder(true, MAX_FRAME, MAX_MESSAGE), input, split);
            assertThat(results).as("split at %d", split).hasSize(2);
            assertThat(((Decoded.Binary) results.get(0)).data()).isEqualTo(medium);
            assertThat(((Decoded.Binary) results.get(1)).data()).isEqualTo(large);
        }
    }

    @Test
    void acceptsUtf8SplitBetweenFragmentsAndEmptyFragments() {
        byte[] text = "a€😀z".getBytes(StandardCharsets.UTF_8);
        for (int cut = 0; cut <= text.length; cut++) {
            byte[] input = Frames.of()
                    .masked(false, TEXT, java.util.Arrays.copyOfRange(text, 0, cut))
                    .masked(false, CONTINUATION, new byte[0])
                    .masked(true, CONTINUATION, java.util.Arrays.copyOfRange(text, cut, text.length))
                    .build();
            assertThat(decodeAtEveryOffset(input)).as("cut at %d", cut).containsExactly(new Decoded.Text("a€😀z"));
        }
    }

    @Test
    void decodesCloseFramesWithAndWithoutACode() {
        byte[] input = Frames.of()
                .masked(true, CLOSE, Frames.close(1000, "bye ✓".getBytes(StandardCharsets.UTF_8)))
                .masked(true, CLOSE, new byte[0])
                .build();
        assertThat(decodeAtEveryOffset(input))
                .containsExactly(new Decoded.Close(1000, "bye ✓"), new Decoded.Close(WsClose.NO_STATUS, ""));
    }

    @Test
    void refusesReservedBitsAndOpcodes() {
        assertThat(failure(Frames.of().raw(0x80 | 0x40 | TEXT, true, new byte[]{'a'}).build()).code()).isEqualTo(WsClose.PROTOCOL_ERROR);
        assertThat(failure(Frames.of().raw(0x80 | 0x10 | TEXT, true, new byte[]{'a'}).build()).code()).isEqualTo(WsClose.PROTOCOL_ERROR);
        assertThat(failure(Frames.of().raw(0x80 | 0x3, true, new byte[]{'a'}).build()).code()).isEqualTo(WsClose.PROTOCOL_ERROR);
        assertThat(failure(Frames.of().raw(0x80 | 0xB, true, new byte[]{'a'}).build()).code()).isEqualTo(WsClose.PROTOCOL_ERROR);
    }

    @Test
    void refusesAnUnmaskedClientFrameOnAServerAndAMaskedServerFrameOnAClient() {
        Decoded.Failed onServer = failure(Frames.of().unmasked(true, TEXT, new byte[]{'a'}).build());
        assertThat(onServer.code()).isEqualTo(WsClose.PROTOCOL_ERROR);
        assertThat(onServer.reason()).contains("not masked");
        byte[] masked = Frames.of().masked(true, TEXT, "a").build();
        List<Decoded> onClient = decodeSplit(new FrameDecoder(false, MAX_FRAME, MAX_MESSAGE), masked, 1);
        assertThat(onClient).containsExactly(new Decoded.Failed(WsClose.PROTOCOL_ERROR, "server frame masked"));
    }

    @Test
    void refusesFragmentedAndOversizedControlFrames() {
        assertThat(failure(Frames.of().masked(false, PING, "x").build()).reason()).isEqualTo("fragmented control frame");
        assertThat(failure(Frames.of().masked(true, PING, bytes(126)).build()).reason()).isEqualTo("control frame longer than 125 bytes");
        assertThat(failure(Frames.of().masked(true, CLOSE, new byte[]{3}).build()).code()).isEqualTo(WsClose.PROTOCOL_ERROR);
    }

    @Test
    void refusesBadFragmentSequences() {
        assertThat(failure(Frames.of().masked(true, CONTINUATION, "x").build()).reason())
                .isEqualTo("continuation frame without a message to continue");
        assertThat(failure(Frames.of().masked(false, TEXT, "x").masked(true, BINARY, "y").build()).reason())
                .isEqualTo("new message inside a fragmented message");
        assertThat(failure(Frames.of().masked(true, TEXT, "x").masked(true, CONTINUATION, "y").build()).code())
                .isEqualTo(WsClose.PROTOCOL_ERROR);
    }

    @Test
    void refusesInvalidUtf8InTextAndCloseReasons() {
        assertThat(failure(Frames.of().masked(true, TEXT, new byte[]{'a', (byte) 0xC0, (byte) 0x80}).build()).code())
                .isEqualTo(WsClose.INVALID_PAYLOAD);
        // Fails on the first fragment already, before the message ends.
        assertThat(failure(Frames.of().masked(false, TEXT, new byte[]{(byte) 0xED, (byte) 0xA0, (byte) 0x80}).build()).code())
                .isEqualTo(WsClose.INVALID_PAYLOAD);
        assertThat(failure(Frames.of().masked(true, TEXT, new byte[]{'a', (byte) 0xE2, (byte) 0x82}).build()).reason())
                .isEqualTo("text message ends inside a UTF-8 sequence");
        assertThat(failure(Frames.of().masked(true, CLOSE, Frames.close(1000, new byte[]{(byte) 0xFF})).build()).code())
                .isEqualTo(WsClose.INVALID_PAYLOAD);
    }

    @Test
    void refusesCloseCodesThatMayNotBeSent() {
        for (int code : new int[]{0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000}) {
            assertThat(failure(Frames.of().masked(true, CLOSE, Frames.close(code, new byte[0])).build()).code())
                    .as("code %d", code).isEqualTo(WsClose.PROTOCOL_ERROR);
        }
    }

    @Test
    void refusesFramesAndMessagesOverTheirLimitsBeforeBufferingThem() {
        FrameDecoder decoder = new FrameDecoder(true, 1000, 1500);
        byte[] header = {(byte) 0x82, (byte) (0x80 | 126), 0x03, (byte) 0xE9}; // a 1001-byte frame: the header is enough
        assertThat(decoder.decode(ByteBuffer.wrap(header))).isEqualTo(new Decoded.Failed(WsClose.TOO_BIG, "frame of 1001 bytes exceeds 1000"));

        byte[] fragments = Frames.of().masked(false, BINARY, bytes(1000)).masked(true, CONTINUATION, bytes(501)).build();
        assertThat(failure(() -> new FrameDecoder(true, 1000, 1500), fragments).code()).isEqualTo(WsClose.TOO_BIG);
        byte[] fits = Frames.of().masked(false, BINARY, bytes(1000)).masked(true, CONTINUATION, bytes(500)).build();
        assertThat(decodeSplit(new FrameDecoder(true, 1000, 1500), fits, 7)).hasSize(1);
    }

    @Test
    void refusesASixtyFourBitLengthWithItsTopBitSet() {
        byte[] input = {(byte) 0x82, (byte) (0x80 | 127), (byte) 0x80, 0, 0, 0, 0, 0, 0, 1};
        assertThat(failure(input).reason()).isEqualTo("frame length with the most significant bit set");
    }

    @Test
    void staysFailed() {
        FrameDecoder decoder = new FrameDecoder(true, MAX_FRAME, MAX_MESSAGE);
        Decoded first = decoder.decode(ByteBuffer.wrap(Frames.of().unmasked(true, TEXT, new byte[]{'a'}).build()));
        assertThat(decoder.decode(ByteBuffer.wrap(Frames.of().masked(true, TEXT, "b").build()))).isSameAs(first);
    }
}
