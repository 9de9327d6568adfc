package keel.http.ws;

import keel.http.Execution;
import keel.http.router.Router;
import org.junit.jupiter.api.Test;

import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Sends from other threads keep their order; a slow reader meets the bound and the send fails. */
class WsSendTest {
    private final CompletableFuture<WsSession> opened = new CompletableFuture<>();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final WsListener recording = new WsListener() {
        @Override
        public void onOpen(WsSession session) {
            opened.complete(session);
        }

        @Override
        public void onWritabilityChanged(WsSession session, boolean writable) {
            events.add("writable " + writable);
        }
    };

    /** The last writability event once delivered (callbacks run on virtual threads, a little later). */
    private String lastEvent() throws InterruptedException {
        String last = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            String now = events.isEmpty() ? null : events.getLast();
            if (now != null && now.equals(last)) return now; // stable for one poll
            last = now;
            Thread.sleep(50);
        }
        return last;
    }

    @Test
    void sendsFromForeignThreadsArriveInCallOrderAndCompleteWhenWritten() throws Exception {
        try (WsServer server = WsServer.start(new Router().ws("/ws", recording))) {
            JdkWsClient client = JdkWsClient.connect(server.uri("/ws"));
            WsSession session = opened.get(5, TimeUnit.SECONDS);
            List<CompletableFuture<Void>> stages = new ArrayList<>();
            Thread producer = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 2000; i++) stages.add(session.send("m" + i).toCompletableFuture());
            });
            producer.join();
            for (int i = 0; i < 2000; i++) assertThat(client.nextText()).isEqualTo("m" + i);
            CompletableFuture.allOf(stages.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
            assertThat(session.queuedBytes()).isZero();
        }
    }

    @Test
    void aMessageSentInFragmentsGoesOutAsContinuationFramesWithPingsAllowedBetween() throws Exception {
        try (WsServer server = WsServer.start(new Router().ws("/ws", recording));
             RawWsClient client = RawWsClient.open(server.port(), "/ws")) {
            WsSession session = opened.get(5, TimeUnit.SECONDS);
            session.send("frag", false);
            session.ping("between".getBytes());
            CompletableFuture<Void> refused = session.send("whole").toCompletableFuture();
            session.send("men", false);
            session.send("ted", true).toCompletableFuture().get(5, TimeUnit.SECONDS);
            session.send(new byte[]{1}, false);
            session.send(new byte[]{2}, true);
            session.send("after");

            assertThat(refused).isCompletedExceptionally();
            assertThat(refused.exceptionNow()).isInstanceOf(IllegalStateException.class).hasMessageContaining("still open");
            String[] expected = {"1 false frag", "9 true between", "0 false men", "0 true ted", "2 false \u0001", "0 true \u0002", "1 true after"};
            for (String frame : expected) {
                RawWsClient.Frame f = client.readFrame();
                assertThat(f.opcode() + " " + f.fin() + " " + f.text()).isEqualTo(frame);
            }
        }
    }

    @Test
    void theJdkClientReassemblesAMessageSentInFragments() throws Exception {
        try (WsServer server = WsServer.start(new Router().ws("/ws", recording))) {
            JdkWsClient client = JdkWsClient.connect(server.uri("/ws"));
            WsSession session = opened.get(5, TimeUnit.SECONDS);
            String big = "x".repeat(100_000);
            session.send(big, false);
            session.send("y", false);
            session.send(big, true);
            assertThat(client.nextText()).isEqualTo(big + "y" + big);
        }
    }

    @Test
    void aChainOfSendsEachStartedWhenThePreviousIsWrittenDoesNotRecurse() throws Exception {
        try (WsServer server = WsServer.start(new Router().ws("/ws", recording))) {
            JdkWsClient client = JdkWsClient.connect(server.uri("/ws"));
            WsSession session = opened.get(5, TimeUnit.SECONDS);
            CompletableFuture<Void> last = new CompletableFuture<>();
            sendChain(session, 0, 20_000, last); // continuations run on the loop, each inside the previous write's completion
            last.get(30, TimeUnit.SECONDS);
            for (int i = 0; i < 20_000; i++) assertThat(client.nextText()).isEqualTo("c" + i);
        }
    }

    private static void sendChain(WsSession session, int i, int count, CompletableFuture<Void> last) {
        if (i == count) {
            last.complete(null);
            return;
        }
        session.send("c" + i).whenComplete((ok, failure) -> {
            if (failure != null) last.completeExceptionally(failure);
            else sendChain(session, i + 1, count, last);
        });
    }

    @Test
    void aSlowReaderHitsTheBoundAndFurtherSendsFailWithoutClosingTheSession() throws Exception {
        int bound = 256 * 1024;
        try (WsServer server = WsServer.start(new Router().ws("/ws", recording), options -> options.wsMaxQueuedOutput(bound));
             Socket socket = new Socket()) {
            socket.setReceiveBufferSize(16 * 1024);
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", server.port()));
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(RawWsClient.handshake("/ws", "").getBytes());
            WsSession session = opened.get(5, TimeUnit.SECONDS);

            // The client reads nothing: the socket buffers fill, then the session's queue, then sends fail.
            // A refusal while the loop can still move bytes into the socket is transient: keep sending
            // until the queue stays over the bound.
            List<Integer> acceptedIds = new ArrayList<>();
            List<CompletableFuture<Void>> accepted = new ArrayList<>();
            CompletableFuture<Void> refused = null;
            for (int i = 0; i < 100_000; i++) {
                byte[] chunk = new byte[16 * 1024];
                chunk[0] = (byte) i;
                chunk[1] = (byte) (i >> 8);
                chunk[2] = (byte) (i >> 16);
                CompletableFuture<Void> stage = session.send(chunk).toCompletableFuture();
                if (!stage.isCompletedExceptionally()) {
                    acceptedIds.add(i);
                    accepted.add(stage);
                    continue;
                }
                assertThat(stage.exceptionNow()).isInstanceOf(WsOverflowException.class).hasMessageContaining("the bound is 262144");
                long queued = session.queuedBytes();
                Thread.sleep(50);
                if (queued >= bound && session.queuedBytes() == queued) {
                    refused = stage;
                    break;
                }
            }
            assertThat(refused).as("a send was refused while the reader stalls").isNotNull();
            assertThat(session.queuedBytes()).isGreaterThanOrEqualTo(bound);
            assertThat(session.isWritable()).isFalse();
            assertThat(session.isOpen()).isTrue();
            assertThat(lastEvent()).isEqualTo("writable false");

            // Now the client reads: every accepted message arrives, in order, and the session is writable again.
            RawWsClient reader = RawWsClient.wrap(socket);
            reader.readHead();
            for (int id : acceptedIds) {
                byte[] payload = reader.readFrame().payload();
                assertThat((payload[0] & 0xFF) | (payload[1] & 0xFF) << 8 | (payload[2] & 0xFF) << 16).isEqualTo(id);
            }
            CompletableFuture.allOf(accepted.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
            assertThat(session.send("after").toCompletableFuture().get(5, TimeUnit.SECONDS)).isNull();
            assertThat(reader.readFrame().text()).isEqualTo("after");
            assertThat(session.isWritable()).isTrue();
            assertThat(lastEvent()).isEqualTo("writable true");
            for (int i = 0; i < events.size(); i++) assertThat(events.get(i)).isEqualTo(i % 2 == 0 ? "writable false" : "writable true");
        }
    }

    @Test
    void aBlockingListenerOnVirtualThreadsKeepsMessageOrder() throws Exception {
        List<String> threads = new CopyOnWriteArrayList<>();
        WsListener slowEcho = new WsListener() {
            @Override
            public void onText(WsSession session, String text) {
                threads.add(Thread.currentThread().isVirtual() ? "virtual" : Thread.currentThread().getName());
                try {
                    Thread.sleep(text.hashCode() & 3); // blocking is allowed here
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                session.send(text);
            }
        };
        Router router = new Router();
        router.with(Execution.VIRTUAL_THREAD).ws("/ws", slowEcho);
        try (WsServer server = WsServer.start(router)) {
            JdkWsClient client = JdkWsClient.connect(server.uri("/ws"));
            for (int i = 0; i < 100; i++) client.socket.sendText("m" + i, true).join();
            for (int i = 0; i < 100; i++) assertThat(client.nextText()).isEqualTo("m" + i);
            assertThat(threads).hasSize(100).containsOnly("virtual");
        }
    }

    @Test
    void eventLoopAndWorkerPoolListenersRunWhereTheirExecutionSays() throws Exception {
        List<String> threads = new CopyOnWriteArrayList<>();
        WsListener naming = new WsListener() {
            @Override
            public void onText(WsSession session, String text) {
                threads.add(Thread.currentThread().getName().replaceAll("-\\d+$", ""));
                session.send(text);
            }
        };
        Router router = new Router();
        router.with(Execution.EVENT_LOOP).ws("/loop", naming);
        router.with(Execution.WORKER_POOL).ws("/pool", naming);
        try (WsServer server = WsServer.start(router)) {
            for (String path : new String[]{"/loop", "/pool"}) {
                JdkWsClient client = JdkWsClient.connect(server.uri(path));
                client.socket.sendText(path, true).join();
                assertThat(client.nextText()).isEqualTo(path);
            }
            assertThat(threads).containsExactly("keel-loop", "keel-worker");
        }
    }
}
