package keel.core.buffer;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class WriteQueueTest {
    /** A channel that takes at most {@code perCall} bytes a call, like a socket with a full send buffer. */
    private static final class TrickleChannel implements GatheringByteChannel {
        final ByteArrayOutputStream written = new ByteArrayOutputStream();
        int perCall;
        /** The most buffers one gathering write was handed. */
        int mostBuffers;

        TrickleChannel(int perCall) {
            this.perCall = perCall;
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            mostBuffers = Math.max(mostBuffers, length);
            long total = 0;
            for (int i = offset; i < offset + length && total < perCall; i++) total += write(srcs[i], (int) (perCall - total));
            return total;
        }

        @Override
        public long write(ByteBuffer[] srcs) {
            return write(srcs, 0, srcs.length);
        }

        @Override
        public int write(ByteBuffer src) {
            return write(src, perCall);
        }

        private int write(ByteBuffer src, int max) {
            int n = Math.min(max, src.remaining());
            byte[] bytes = new byte[n];
            src.get(bytes);
            written.write(bytes, 0, n);
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void keepsByteOrderAcrossCopiedAndQueuedBuffersAndPartialWrites() throws IOException {
        BufferPool pool = new BufferPool(64, 4);
        WriteQueue queue = new WriteQueue(pool);
        byte[] large = new byte[WriteQueue.COPY_THRESHOLD + 10];
        Arrays.fill(large, (byte) 'x');
        queue.putAscii("HTTP/1.1 200 OK\r\n");
        queue.putDecimal(1234567);
        queue.put(large);
        queue.putHex(255);
        String expected = "HTTP/1.1 200 OK\r\n1234567" + "x".repeat(large.length) + "ff";
        assertThat(queue.pendingBytes()).isEqualTo(expected.length());

        TrickleChannel channel = new TrickleChannel(7);
        while (!queue.writeTo(channel)) channel.perCall = 7;
        assertThat(channel.written.toString(StandardCharsets.ISO_8859_1)).isEqualTo(expected);
        assertThat(queue.isEmpty()).isTrue();
        assertThat(pool.idleCount()).isPositive();
    }

    @Test
    void gathersAtMostSixtyFourBuffersAWriteAndKeepsTheirOrderHoweverManyAreQueued() throws IOException {
        WriteQueue queue = new WriteQueue(new BufferPool(64, 4));
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int i = 0; i < 150; i++) {
            byte[] body = new byte[WriteQueue.COPY_THRESHOLD]; // queued as it is: one buffer each
            Arrays.fill(body, (byte) i);
            queue.put(body);
            expected.write(body, 0, body.length);
            if (i % 50 == 0) queue.putAscii("line " + i + "\r\n"); // and a copied one between them now and then
            if (i % 50 == 0) expected.writeBytes(("line " + i + "\r\n").getBytes(StandardCharsets.US_ASCII));
        }
        TrickleChannel channel = new TrickleChannel(100 * WriteQueue.COPY_THRESHOLD);
        while (!queue.writeTo(channel)) channel.perCall = 100 * WriteQueue.COPY_THRESHOLD;
        assertThat(channel.written.toByteArray()).isEqualTo(expected.toByteArray());
        assertThat(channel.mostBuffers).isEqualTo(64);
        assertThat(queue.isEmpty()).isTrue();
    }

    @Test
    void neverReturnsCallerOwnedBuffersToThePool() throws IOException {
        BufferPool pool = new BufferPool(WriteQueue.COPY_THRESHOLD, 8);
        WriteQueue queue = new WriteQueue(pool);
        byte[] body = new byte[WriteQueue.COPY_THRESHOLD]; // same size as the pool's buffers
        queue.put(body);
        queue.writeTo(new TrickleChannel(Integer.MAX_VALUE));
        ByteBuffer reused = pool.acquire();
        reused.put((byte) 1);
        assertThat(body[0]).isZero();
    }

    @Test
    void writesEverythingToAStream() throws IOException {
        WriteQueue queue = new WriteQueue(new BufferPool(32, 2));
        queue.putAscii("a".repeat(100));
        queue.put(new byte[WriteQueue.COPY_THRESHOLD]);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        queue.writeTo(out);
        assertThat(out.size()).isEqualTo(100 + WriteQueue.COPY_THRESHOLD);
        assertThat(queue.pendingBytes()).isZero();
    }

    @Test
    void writesAsciiTextOfAnyKindWhetherItFitsTheTailOrSpillsOver() throws IOException {
        WriteQueue queue = new WriteQueue(new BufferPool(16, 4));
        StringBuilder id = new StringBuilder("5f2a9c01be34-1a");
        queue.putAscii("X-Id: ");          // fits the tail
        queue.putAscii(id);                // not a String, and longer than the 10 bytes left
        queue.putAscii(new StringBuilder("\r\n")); // fits again
        queue.putAscii("b".repeat(40));    // a String spilling over two more buffers
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        queue.writeTo(out);
        assertThat(out.toString(StandardCharsets.ISO_8859_1)).isEqualTo("X-Id: 5f2a9c01be34-1a\r\n" + "b".repeat(40));
    }
}
