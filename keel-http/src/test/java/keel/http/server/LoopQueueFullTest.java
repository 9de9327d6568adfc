package keel.http.server;

import keel.http.Execution;
import keel.http.Response;
import keel.http.Rejection;
import keel.http.router.Router;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An event loop whose task queue ({@code server.loop-task-queue}) is full: every request in flight
 * holds the place of its answer, so a request past the bound is answered 503 on the loop while that is
 * possible, the answers of those in flight always come back, and a new connection no loop can take is
 * closed, counted (nio transport).
 */
class LoopQueueFullTest {
    private static final int QUEUE = 3;

    @ParameterizedTest
    @EnumSource(value = Wire.class, names = {"NIO", "NIO_TLS"})
    void aRequestPastTheLoopsTaskQueueIsAnswered503AndTheOnesInFlightGetTheirAnswers(Wire wire) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        Router router = holding(release, running);
        ReasonCounter reasons = new ReasonCounter();
        List<RawClient> clients = new ArrayList<>();
        try (TestServer server = TestServer.start(wire, router, reasons, b -> b.loops(1).loopTaskQueue(QUEUE).execution(Execution.VIRTUAL_THREAD))) {
            try {
                // Connected first: each connection's hand-off to the loop takes a place for a moment.
                for (int i = 0; i <= QUEUE; i++) {
                    clients.add(server.raw());
                    server.awaitOpenConnections(i + 1);
                }
                for (int i = 0; i < QUEUE; i++) clients.get(i).send(RawClient.get("/hold"));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (running.get() < QUEUE && System.nanoTime() - deadline < 0) Thread.sleep(5);
                assertThat(running.get()).as("every place holds a request in flight").isEqualTo(QUEUE);

                RawClient last = clients.get(QUEUE);
                last.send(RawClient.get("/hold"));
                RawClient.RawResponse refused = last.read();
                assertThat(refused.status()).isEqualTo(503);
                assertThat(refused.header("Retry-After")).isEqualTo("1");
                assertThat(refused.body()).isEqualTo("event loop task queue is full\n");
                assertThat(reasons.count(Rejection.LOOP_QUEUE_FULL)).isEqualTo(1);
                assertThat(running.get()).as("the handler never ran").isEqualTo(QUEUE);

                release.countDown();
                for (int i = 0; i < QUEUE; i++) assertThat(clients.get(i).read().body()).as("answer %d", i).isEqualTo("held");
                last.send(RawClient.get("/hold"));
                assertThat(last.read().body()).as("places free again: the refused connection is served").isEqualTo("held");
                assertThat(reasons.count(ServerObserver.Drop.LOOP_QUEUE_FULL)).isZero();
            } finally {
                release.countDown();
                clients.forEach(RawClient::close);
            }
        }
    }

    /** A connection accepted while the only loop has no place left: closed at once, no request read, counted. */
    @ParameterizedTest
    @EnumSource(value = Wire.class, names = "NIO")
    void aConnectionNoLoopCanTakeIsClosedAndCounted(Wire wire) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        Router router = holding(release, running);
        ReasonCounter reasons = new ReasonCounter();
        List<RawClient> clients = new ArrayList<>();
        try (TestServer server = TestServer.start(wire, router, reasons, b -> b.loops(1).loopTaskQueue(QUEUE))) {
            try {
                // Connected one by one first: a hand-off to the loop takes a place for a moment, and so do
                // the loop's first tasks (its lag probe, its sweep) on a machine slow to run them.
                for (int i = 0; i < QUEUE; i++) {
                    clients.add(server.raw());
                    server.awaitOpenConnections(i + 1);
                }
                for (RawClient client : clients) client.send(RawClient.get("/hold"));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (running.get() < QUEUE && System.nanoTime() - deadline < 0) Thread.sleep(5);
                assertThat(running.get()).isEqualTo(QUEUE);

                try (Socket refused = new Socket("127.0.0.1", server.port())) {
                    refused.setSoTimeout(5_000);
                    refused.getOutputStream().write(RawClient.get("/hold").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    assertThat(endOfStream(refused.getInputStream())).as("closed without a response").isTrue();
                }
                assertThat(reasons.await(ServerObserver.Drop.HANDOFF_REFUSED, 1)).isEqualTo(1);
                release.countDown();
                for (RawClient client : clients) assertThat(client.read().body()).isEqualTo("held");
            } finally {
                release.countDown();
                clients.forEach(RawClient::close);
            }
        }
    }

    /** GET /hold: counts itself running, then waits for {@code release}. */
    private static Router holding(CountDownLatch release, AtomicInteger running) {
        return new Router().get("/hold", request -> {
            running.incrementAndGet();
            release.await(5, TimeUnit.SECONDS);
            return Response.ok("held");
        });
    }

    /** True at the end of the stream or a reset: nothing came before it. */
    private static boolean endOfStream(InputStream in) {
        try {
            return in.read() < 0;
        } catch (IOException reset) {
            return true;
        }
    }
}
