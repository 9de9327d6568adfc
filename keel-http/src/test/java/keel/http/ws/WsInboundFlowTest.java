package keel.http.ws;

import keel.http.Execution;
import keel.http.router.Router;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static keel.http.ws.FrameDecoder.BINARY;
import static org.assertj.core.api.Assertions.assertThat;

/** A listener that blocks makes its session stop reading: the sender is held back by TCP, not buffered in memory. */
class WsInboundFlowTest {
    private static final int MESSAGES = 4096;
    private static final int SIZE = 16 * 1024; // 64 MiB in all: more than the socket buffers of both sides can hold

    @Test
    void aBlockedListenerStopsReadingAndEveryMessageArrivesInOrderOnceItResumes() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger delivered = new AtomicInteger();
        AtomicInteger outOfOrder = new AtomicInteger();
        WsListener blockedAtFirst = new WsListener() {
            @Override
            public void onBinary(WsSession session, byte[] data) {
                int number = (data[0] & 0xFF) | (data[1] & 0xFF) << 8;
                if (number != delivered.getAndIncrement()) outOfOrder.incrementAndGet();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (delivered.get() == MESSAGES) session.send("all " + MESSAGES);
            }
        };
        Router router = new Router();
        router.with(Execution.VIRTUAL_THREAD).ws("/ws", blockedAtFirst);
        try (WsServer server = WsServer.start(router); Socket socket = new Socket()) {
            socket.setSendBufferSize(16 * 1024);
            socket.connect(new InetSocketAddress("127.0.0.1", server.port()));
            RawWsClient client = RawWsClient.wrap(socket);
            client.send(RawWsClient.handshake("/ws", ""));
            assertThat(client.readHead()).startsWith("HTTP/1.1 101 ");

            AtomicLong sent = new AtomicLong();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    OutputStream out = socket.getOutputStream();
                    for (int i = 0; i < MESSAGES; i++) {
                        byte[] payload = new byte[SIZE];
                        payload[0] = (byte) i;
                        payload[1] = (byte) (i >> 8);
                        out.write(Frames.of().masked(true, BINARY, payload).build());
                        sent.addAndGet(SIZE);
                    }
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            writer.join(2_000);
            // The listener holds its first message; the server read only up to its backlog bound, so
            // the writer is stuck on a full socket.
            assertThat(writer.isAlive()).as("the writer is held back").isTrue();
            assertThat(sent.get()).isLessThan((long) MESSAGES * SIZE);
            assertThat(delivered.get()).isEqualTo(1);

            release.countDown();
            writer.join(30_000);
            assertThat(writer.isAlive()).isFalse();
            assertThat(client.readFrame().text()).isEqualTo("all " + MESSAGES);
            assertThat(outOfOrder.get()).isZero();
        }
    }
}
