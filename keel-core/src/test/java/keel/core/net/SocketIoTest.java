package keel.core.net;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A channel's recv/send against a real loopback peer: bytes, the end of input, a full socket, a reset and a closed channel. */
class SocketIoTest {

    /** The tests run with what bin/keel gives the JVM, so the native path is the one under test here and in every channel test. */
    @Test
    void theTestJvmAllowsRecvAndSend() throws IOException {
        assertThat(SocketIo.unavailable()).isNull();
        try (Pair pair = Pair.open(true)) {
            assertThat(pair.io.isNative()).isTrue();
        }
        try (Pair pair = Pair.open(false)) {
            assertThat(pair.io.isNative()).as("turned off by the channel's settings").isFalse();
        }
    }

    @Test
    void readsIntoHeapAndDirectBuffersAtTheirPositionThenTheEndOfInput() throws IOException {
        try (Pair pair = Pair.open(true)) {
            ByteBuffer heap = ByteBuffer.allocate(64).put("ab".getBytes(StandardCharsets.US_ASCII));
            assertThat(pair.io.read(heap)).as("nothing sent yet").isZero();

            pair.peer.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.US_ASCII)));
            assertThat(readSome(pair.io, heap)).isEqualTo(5);
            assertThat(new String(heap.array(), 0, heap.position(), StandardCharsets.US_ASCII)).isEqualTo("abhello");

            ByteBuffer direct = ByteBuffer.allocateDirect(64);
            direct.position(3);
            pair.peer.write(ByteBuffer.wrap("world".getBytes(StandardCharsets.US_ASCII)));
            assertThat(readSome(pair.io, direct)).isEqualTo(5);
            byte[] got = new byte[5];
            direct.flip().position(3);
            direct.get(got);
            assertThat(new String(got, StandardCharsets.US_ASCII)).isEqualTo("world");

            pair.peer.shutdownOutput();
            assertThat(readSome(pair.io, heap)).as("the end of input").isEqualTo(-1);
        }
    }

    @Test
    void writesUntilTheSocketIsFullThenEveryByteArrivesInOrder() throws Exception {
        try (Pair pair = Pair.open(true)) {
            byte[] data = new byte[8 * 1024 * 1024];
            for (int i = 0; i < data.length; i++) data[i] = (byte) (i * 31 + (i >>> 11));
            ByteBuffer src = ByteBuffer.wrap(data, 0, data.length / 2);
            long written = 0;
            int n;
            while ((n = pair.io.write(src)) > 0) written += n;
            assertThat(n).as("a full socket takes nothing, without an error").isZero();
            assertThat(written).isPositive().isLessThan(data.length / 2);

            CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> readAll(pair.peer, data.length));
            // The rest, half from a read-only view (no array behind it for the caller), as the socket drains.
            ByteBuffer readOnly = ByteBuffer.wrap(data, data.length / 2, data.length / 2).asReadOnlyBuffer();
            for (ByteBuffer part : new ByteBuffer[]{src, readOnly}) {
                while (part.hasRemaining()) {
                    if (pair.io.write(part) == 0) Thread.onSpinWait();
                }
            }
            assertThat(Arrays.equals(received.get(30, TimeUnit.SECONDS), data)).isTrue();
        }
    }

    @Test
    void aResetIsTheJdksIOExceptionAndAClosedChannelItsClosedChannelException() throws IOException {
        try (Pair pair = Pair.open(true)) {
            pair.peer.setOption(StandardSocketOptions.SO_LINGER, 0);
            pair.peer.close(); // RST
            ByteBuffer buffer = ByteBuffer.allocate(16);
            assertThatThrownBy(() -> {
                while (pair.io.read(buffer) == 0) Thread.onSpinWait();
            }).isInstanceOf(IOException.class).hasMessageContaining("reset");

            pair.io.close();
            assertThat(pair.io.isOpen()).isFalse();
            assertThatThrownBy(() -> pair.io.read(buffer)).isInstanceOf(ClosedChannelException.class);
            assertThatThrownBy(() -> pair.io.write(ByteBuffer.wrap(new byte[1]))).isInstanceOf(ClosedChannelException.class);
        }
    }

    /** Reads until something (or the end) comes: the socket is non-blocking. */
    private static int readSome(SocketIo io, ByteBuffer dst) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int n;
        while ((n = io.read(dst)) == 0 && System.nanoTime() - deadline < 0) Thread.onSpinWait();
        return n;
    }

    private static byte[] readAll(SocketChannel peer, int size) {
        try (InputStream in = peer.socket().getInputStream()) {
            return in.readNBytes(size);
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    /** A connected pair over loopback: {@code io} over the non-blocking side, {@code peer} blocking. */
    private record Pair(SocketIo io, SocketChannel peer) implements AutoCloseable {
        static Pair open(boolean nativeWanted) throws IOException {
            try (ServerSocketChannel listener = ServerSocketChannel.open()) {
                listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel peer = SocketChannel.open(listener.getLocalAddress());
                SocketChannel accepted = listener.accept();
                accepted.configureBlocking(false);
                return new Pair(new SocketIo(accepted, nativeWanted), peer);
            }
        }

        @Override
        public void close() throws IOException {
            io.close();
            peer.close();
        }
    }
}
