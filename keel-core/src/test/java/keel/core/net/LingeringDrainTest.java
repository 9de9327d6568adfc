package keel.core.net;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The blocking form of the drain, against a real loopback peer. */
class LingeringDrainTest {
    private static final long DRAIN_TIME = TimeUnit.SECONDS.toNanos(5);

    /** A connected pair: [0] is the side that closes lingering, [1] the peer. */
    private static Socket[] connectedPair() throws IOException {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Socket peer = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort());
            return new Socket[]{listener.accept(), peer};
        }
    }

    @Test
    void dropsUnreadInputAndEndsWhenThePeerCloses() throws IOException {
        Socket[] pair = connectedPair();
        try (Socket closing = pair[0]; Socket peer = pair[1]) {
            peer.getOutputStream().write(new byte[10_000]);
            InputStream peerInput = peer.getInputStream();

            Thread.ofVirtual().start(() -> closeOnFin(peer, peerInput));
            boolean peerClosed = LingeringDrain.shutdownAndDrain(closing, closing, new byte[4096], DRAIN_TIME);

            assertThat(peerClosed).isTrue();
        }
    }

    @Test
    void givesUpPastTheByteBound() throws IOException {
        Socket[] pair = connectedPair();
        try (Socket closing = pair[0]; Socket peer = pair[1]) {
            OutputStream peerOutput = peer.getOutputStream();
            Thread.ofVirtual().start(() -> {
                try {
                    while (true) peerOutput.write(new byte[64 * 1024]); // never closes; ends when the socket does
                } catch (IOException expected) {
                    // the test closed the sockets
                }
            });

            long start = System.nanoTime();
            boolean peerClosed = LingeringDrain.shutdownAndDrain(closing, closing, new byte[4096], DRAIN_TIME);

            assertThat(peerClosed).isFalse();
            assertThat(System.nanoTime() - start).as("stopped by the byte bound, not the drain time").isLessThan(DRAIN_TIME);
        }
    }

    @Test
    void givesUpWhenTheDrainTimeRunsOut() throws IOException {
        Socket[] pair = connectedPair();
        try (Socket closing = pair[0]; Socket peer = pair[1]) {
            long start = System.nanoTime();
            boolean peerClosed = LingeringDrain.shutdownAndDrain(closing, closing, new byte[4096],
                    TimeUnit.MILLISECONDS.toNanos(200));

            assertThat(peerClosed).isFalse();
            // The read timeout is the time left floored to whole milliseconds, so it may end up to 1 ms early.
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(199));
            assertThat(peer.getInputStream().read()).as("the peer got a FIN").isEqualTo(-1);
        }
    }

    /** The peer reads until the FIN, then closes its side too. */
    private static void closeOnFin(Socket peer, InputStream peerInput) {
        try {
            while (peerInput.read() >= 0) {
                // nothing is sent before the FIN
            }
            peer.close();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
