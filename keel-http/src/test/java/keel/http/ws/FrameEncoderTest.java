package keel.http.ws;

import keel.core.buffer.BufferPool;
import keel.core.buffer.WriteQueue;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class FrameEncoderTest {
    private static byte[] encode(int opcode, byte[] payload, Random maskKeys) throws IOException {
        WriteQueue out = new WriteQueue(new BufferPool(1024, 4));
        FrameEncoder.write(out, opcode, payload, maskKeys);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        out.writeTo(bytes);
        return bytes.toByteArray();
    }

    @Test
    void serverFramesAreUnmaskedAndDecodeOnAClient() throws IOException {
        for (int length : new int[]{0, 125, 126, 65_535, 65_536, 70_000}) {
            byte[] payload = new byte[length];
            new Random(length).nextBytes(payload);
            byte[] frame = encode(FrameDecoder.BINARY, payload, null);
            assertThat(frame).hasSize(FrameEncoder.frameLength(length, false));
            assertThat(frame[1] & 0x80).as("mask bit").isZero();
            Decoded decoded = new FrameDecoder(false, 1 << 20, 1 << 20).decode(ByteBuffer.wrap(frame));
            assertThat(((Decoded.Binary) decoded).data()).as("length %d", length).isEqualTo(payload);
        }
    }

    @Test
    void clientFramesAreMaskedWithAFreshKeyEachAndDecodeOnAServer() throws IOException {
        Random keys = new Random(42);
        byte[] text = "masked ✓".getBytes(StandardCharsets.UTF_8);
        byte[] first = encode(FrameDecoder.TEXT, text, keys);
        byte[] second = encode(FrameDecoder.TEXT, text, keys);
        assertThat(first).hasSize(FrameEncoder.frameLength(text.length, true));
        assertThat(first[1] & 0x80).as("mask bit").isNotZero();
        assertThat(first).isNotEqualTo(second);
        for (byte[] frame : new byte[][]{first, second}) {
            assertThat(new FrameDecoder(true, 1 << 20, 1 << 20).decode(ByteBuffer.wrap(frame))).isEqualTo(new Decoded.Text("masked ✓"));
        }
    }

    @Test
    void closePayloadCutsALongReasonOnACharacterBoundary() {
        String reason = "é".repeat(100); // 200 bytes
        byte[] payload = FrameEncoder.closePayload(1000, reason);
        assertThat(payload.length).isLessThanOrEqualTo(FrameEncoder.MAX_CONTROL_PAYLOAD);
        assertThat(Utf8Validator.isValid(payload, 2, payload.length - 2)).isTrue();
        assertThat(new String(payload, 2, payload.length - 2, StandardCharsets.UTF_8)).isEqualTo("é".repeat(61));
        assertThat(FrameEncoder.closePayload(WsClose.NO_STATUS, "ignored")).isEmpty();
    }
}
