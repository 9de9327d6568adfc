package keel.http.ws;

import keel.core.buffer.BufferPool;
import keel.core.buffer.WriteQueue;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import static keel.http.ws.FrameDecoder.BINARY;
import static keel.http.ws.FrameDecoder.CONTINUATION;
import static keel.http.ws.FrameDecoder.PING;
import static keel.http.ws.FrameDecoder.TEXT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * permessage-deflate's codec without sockets: RFC 7692's own examples, Keel's compressor against
 * its decoder with every fragment size and every byte split, the bound on inflation, and the
 * reserved-bit rules.
 */
class DeflateCodecTest {
    private static final int MAX = 1 << 20;
    private static final String JSON = "{\"id\":%d,\"name\":\"sensor-%d\",\"unit\":\"°C\",\"values\":[21.5,21.7,21.6],\"ok\":true}";

    private static FrameDecoder clientDecoder(boolean serverResets) {
        return new FrameDecoder(false, MAX, MAX, new MessageInflater(MAX, serverResets));
    }

    /** Every message and control frame in {@code input}, given in pieces of {@code piece} bytes. */
    private static List<Decoded> decode(FrameDecoder decoder, byte[] input, int piece) {
        List<Decoded> results = new ArrayList<>();
        for (int at = 0; at < input.length; at += piece) {
            ByteBuffer buffer = ByteBuffer.wrap(input, at, Math.min(piece, input.length - at));
            Decoded result;
            while (!((result = decoder.decode(buffer)) instanceof Decoded.NeedMore)) {
                results.add(result);
                if (result instanceof Decoded.Failed) return results;
            }
        }
        return results;
    }

    /** What a decoded message compares by: a binary message by its bytes (records compare arrays by identity). */
    private static List<Object> comparable(List<Decoded> decoded) {
        return decoded.stream().map(d -> d instanceof Decoded.Binary b ? (Object) ("binary " + HexFormat.of().formatHex(b.data())) : d).toList();
    }

    private static byte[] hex(String hex) {
        return HexFormat.of().parseHex(hex.replace(" ", ""));
    }

    /** Server frames: one compressed message of {@code data} sent as fragments of {@code size} bytes. */
    private static byte[] fragments(MessageDeflater deflater, int opcode, byte[] data, int size) {
        WriteQueue out = new WriteQueue(new BufferPool(1024, 64));
        for (int at = 0; at == 0 || at < data.length; at += size) {
            byte[] fragment = Arrays.copyOfRange(data, at, Math.min(data.length, at + size));
            boolean last = at + size >= data.length;
            int frameOpcode = at == 0 ? opcode : CONTINUATION;
            boolean compressed = deflater.compresses(frameOpcode, last, fragment.length);
            FrameEncoder.write(out, frameOpcode, last, compressed && at == 0, compressed ? deflater.compress(fragment, last) : fragment, null);
        }
        return drain(out);
    }

    private static byte[] drain(WriteQueue out) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            out.writeTo(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    @Test
    void decodesTheExamplesOfRfc7692AtEveryPieceSize() {
        String[] examples = {
                "c1 07 f2 48 cd c9 c9 07 00",                         // §7.2.3.1, one frame
                "41 03 f2 48 cd 80 04 c9 c9 07 00",                   // §7.2.3.1, two fragments
                "c1 0b 00 05 00 fa ff 48 65 6c 6c 6f 00",             // §7.2.3.3, a stored block
                "c1 08 f3 48 cd c9 c9 07 00 00",                      // §7.2.3.4, BFINAL set
                "c1 0d f2 48 05 00 00 00 ff ff ca c9 c9 07 00"};      // §7.2.3.5, two blocks
        for (String example : examples) {
            for (int piece = 1; piece <= 16; piece++) {
                assertThat(decode(clientDecoder(false), hex(example), piece)).as("%s in pieces of %d", example, piece)
                        .containsExactly(new Decoded.Text("Hello"));
            }
        }
        // §7.2.3.2: the second "Hello" refers back to the first (context takeover); a fresh stream follows BFINAL.
        FrameDecoder decoder = clientDecoder(false);
        assertThat(decode(decoder, hex("c1 07 f2 48 cd c9 c9 07 00 c1 05 f2 00 11 00 00 c1 08 f3 48 cd c9 c9 07 00 00 c1 07 f2 48 cd c9 c9 07 00"), 3))
                .containsExactly(new Decoded.Text("Hello"), new Decoded.Text("Hello"), new Decoded.Text("Hello"), new Decoded.Text("Hello"));
    }

    @Test
    void keelsCompressorWritesTheRfcExamples() {
        byte[] hello = "Hello".getBytes(StandardCharsets.US_ASCII);
        MessageDeflater takeover = new MessageDeflater(6, false);
        assertThat(takeover.compress(hello, true)).isEqualTo(hex("f2 48 cd c9 c9 07 00"));
        assertThat(takeover.compress(hello, true)).as("§7.2.3.2: refers back to the first").isEqualTo(hex("f2 00 11 00 00"));
        MessageDeflater fresh = new MessageDeflater(6, true);
        assertThat(fresh.compress(hello, true)).isEqualTo(hex("f2 48 cd c9 c9 07 00"));
        assertThat(fresh.compress(hello, true)).as("no context takeover: each message alone").isEqualTo(hex("f2 48 cd c9 c9 07 00"));
        takeover.release();
        fresh.release();
    }

    @Test
    void compressesWholeMessagesFrom64BytesAndEveryMessageSentInFragmentsButNoControlFrame() {
        MessageDeflater deflater = new MessageDeflater(6, false);
        assertThat(deflater.compresses(TEXT, true, MessageDeflater.MIN_SIZE - 1)).isFalse();
        assertThat(deflater.compresses(BINARY, true, MessageDeflater.MIN_SIZE)).isTrue();
        assertThat(deflater.compresses(PING, true, 125)).isFalse();
        assertThat(deflater.compresses(TEXT, false, 1)).isTrue();
        assertThat(deflater.compresses(PING, true, 125)).as("a ping between fragments").isFalse();
        assertThat(deflater.compresses(CONTINUATION, true, 1)).isTrue();
        assertThat(deflater.compresses(TEXT, true, 10)).isFalse();
        // An empty last fragment after a flush: the payload is the first byte of an empty stored block.
        deflater.compress("abc".getBytes(StandardCharsets.US_ASCII), false);
        assertThat(deflater.compress(new byte[0], true)).containsExactly(0);
    }

    @Test
    void roundTripsMessagesSentAtEveryFragmentSizeAndLevelWithAndWithoutContextTakeover() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; text.length() < 300; i++) text.append(JSON.formatted(i, i));
        byte[] data = text.toString().getBytes(StandardCharsets.UTF_8);
        for (int level : new int[]{1, 6, 9}) {
            for (boolean reset : new boolean[]{false, true}) {
                MessageDeflater deflater = new MessageDeflater(level, reset);
                FrameDecoder decoder = clientDecoder(reset);
                for (int size = 1; size <= data.length; size++) {
                    byte[] frames = fragments(deflater, size % 2 == 0 ? TEXT : BINARY, data, size);
                    Decoded expected = size % 2 == 0 ? new Decoded.Text(text.toString()) : new Decoded.Binary(data);
                    assertThat(comparable(decode(decoder, frames, 7))).as("fragments of %d, level %d, reset %s", size, level, reset)
                            .isEqualTo(comparable(List.of(expected)));
                }
                deflater.release();
                decoder.release();
            }
        }
    }

    @Test
    void decodesACompressedPayloadCutIntoFramesOfEverySizeAndSplitAtEveryByte() {
        byte[] data = (JSON.formatted(1, 1) + JSON.formatted(2, 2) + JSON.formatted(3, 3)).getBytes(StandardCharsets.UTF_8);
        byte[] compressed = Frames.deflate(data);
        for (int size = 1; size <= compressed.length; size++) {
            Frames frames = Frames.of();
            for (int at = 0; at < compressed.length; at += size) {
                boolean last = at + size >= compressed.length;
                byte[] part = Arrays.copyOfRange(compressed, at, Math.min(compressed.length, at + size));
                frames.raw((last ? 0x80 : 0) | (at == 0 ? 0x40 | TEXT : CONTINUATION), true, part);
            }
            byte[] input = frames.build();
            for (int piece : new int[]{1, 2, 5, input.length}) {
                FrameDecoder decoder = new FrameDecoder(true, MAX, MAX, new MessageInflater(MAX, false));
                assertThat(decode(decoder, input, piece)).as("frames of %d, pieces of %d", size, piece)
                        .containsExactly(new Decoded.Text(new String(data, StandardCharsets.UTF_8)));
            }
        }
    }

    @Test
    void aMessageInflatingPastTheLimitFailsWith1009WithoutBeingInflatedWhole() {
        int limit = 64 * 1024;
        byte[] bomb = Frames.deflate(new byte[8 << 20]); // 8 MiB of zeros in about 36 KiB
        assertThat(bomb.length).isLessThan(limit);
        MessageInflater inflater = new MessageInflater(limit, false);
        FrameDecoder decoder = new FrameDecoder(true, MAX, limit, inflater);
        assertThat(decode(decoder, Frames.of().raw(0x80 | 0x40 | BINARY, true, bomb).build(), 4096))
                .containsExactly(new Decoded.Failed(WsClose.TOO_BIG, "message exceeds 65536 bytes when inflated"));
        assertThat(inflater.lastProduced()).as("bytes inflated into memory").isEqualTo(limit + 1);
        // Exactly at the limit is fine.
        FrameDecoder atLimit = new FrameDecoder(true, MAX, limit, new MessageInflater(limit, false));
        assertThat(comparable(decode(atLimit, Frames.of().raw(0x80 | 0x40 | BINARY, true, Frames.deflate(new byte[limit])).build(), 100)))
                .isEqualTo(comparable(List.of(new Decoded.Binary(new byte[limit]))));
    }

    @Test
    void refusesCorruptDataInvalidUtf8AndMisplacedReservedBits() {
        FrameDecoder decoder = new FrameDecoder(true, MAX, MAX, new MessageInflater(MAX, false));
        assertThat(decode(decoder, Frames.of().raw(0xC0 | TEXT, true, new byte[]{(byte) 0xFF, 1, 2}).build(), 1))
                .containsExactly(new Decoded.Failed(WsClose.PROTOCOL_ERROR, "compressed message is not valid DEFLATE data"));
        byte[] notUtf8 = Frames.deflate(new byte[]{'o', 'k', (byte) 0xC3, 0x28});
        assertThat(decode(new FrameDecoder(true, MAX, MAX, new MessageInflater(MAX, false)), Frames.of().raw(0xC0 | TEXT, true, notUtf8).build(), 1))
                .containsExactly(new Decoded.Failed(WsClose.INVALID_PAYLOAD, "text message is not UTF-8"));
        String[][] cases = {
                {"RSV1 set on a continuation frame", "01"},
                {"RSV1 set on a control frame", "ping"},
                {"reserved bits RSV2 or RSV3 set", "rsv2"}};
        for (String[] c : cases) {
            Frames frames = switch (c[1]) {
                case "01" -> Frames.of().masked(false, TEXT, "a").raw(0x80 | 0x40 | CONTINUATION, true, "b".getBytes());
                case "ping" -> Frames.of().raw(0x80 | 0x40 | PING, true, new byte[0]);
                default -> Frames.of().raw(0x80 | 0x20 | TEXT, true, "a".getBytes());
            };
            List<Decoded> results = decode(new FrameDecoder(true, MAX, MAX, new MessageInflater(MAX, false)), frames.build(), 1);
            assertThat(results.getLast()).as(c[0]).isEqualTo(new Decoded.Failed(WsClose.PROTOCOL_ERROR, c[0]));
        }
        assertThat(decode(new FrameDecoder(true, MAX, MAX), Frames.of().raw(0xC0 | TEXT, true, Frames.deflate("abc".getBytes())).build(), 1))
                .as("RSV1 without the extension").containsExactly(
                        new Decoded.Failed(WsClose.PROTOCOL_ERROR, "reserved bits set without a negotiated extension"));
    }
}
