package keel.http.server;

import keel.http.Execution;
import keel.http.Response;
import keel.http.router.Router;
import keel.http.ws.WsEndpoint;
import keel.http.ws.WsListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the observer times answers made on the loop: the answers of one pipelined burst leave in one
 * write, so they are timed together as the burst is read, and each is reported before its bytes can
 * reach the client, however the burst ends. With the access log on, each is timed as it is made.
 */
class AnswerTimingTest {

    private record Answered(String route, int status, long nanos) {
    }

    private static final class Recorder implements ServerObserver {
        final List<Answered> answers = new CopyOnWriteArrayList<>();

        @Override
        public void onResponse(String method, String route, int status, long nanos) {
            answers.add(new Answered(route, status, nanos));
        }
    }

    /**
     * Records an answer only after holding the loop for a while: an answer reported after its bytes
     * left would reach the client first, and be missing when the client looks.
     */
    private static final class LateRecorder implements ServerObserver {
        final List<String> routes = new CopyOnWriteArrayList<>();

        @Override
        public void onResponse(String method, String route, int status, long nanos) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            routes.add(route + " " + status);
        }
    }

    /** How a burst ends after two answers on the loop, and what the observer hears of its last request. */
    private enum Ending {
        CLOSE("GET /fast HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", List.of("/fast 200")),
        MALFORMED("GET /fast HTTP/1.1\r\nHost x\r\n\r\n", List.of()), // refused unparsed: 400, no route
        UPGRADE("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", List.of("/ws 101")),
        NOT_FOUND("GET /missing HTTP/1.1\r\nHost: x\r\n\r\n", List.of("null 404"));

        final String request;
        final List<String> reported;

        Ending(String request, List<String> reported) {
            this.request = request;
            this.reported = reported;
        }
    }

    /**
     * {@code /slow} holds its loop for 20 ms (and says how long it held it), {@code /fast} answers at
     * once: far sooner, even on a cold server's first requests.
     */
    private static Router router(AtomicLong slowNanos) {
        Router router = new Router();
        router.with(Execution.EVENT_LOOP).get("/fast", request -> Response.ok("fast"));
        router.with(Execution.EVENT_LOOP).get("/slow", request -> {
            long start = System.nanoTime();
            long now;
            do {
                now = System.nanoTime();
            } while (now - start < 20_000_000);
            slowNanos.set(now - start);
            return Response.ok("slow");
        });
        router.with(Execution.EVENT_LOOP).ws("/ws", WsEndpoint.of(new WsListener() {
        }));
        return router;
    }

    private static String burst(String... paths) {
        StringBuilder text = new StringBuilder();
        for (String path : paths) text.append(RawClient.get(path));
        return text.toString();
    }

    /** Sends a burst of {@code paths} and reads its answers, all 200. */
    private static void exchange(RawClient client, String... paths) {
        client.send(burst(paths));
        for (String path : paths) assertThat(client.read().status()).as(path).isEqualTo(200);
    }

    @ParameterizedTest
    @EnumSource(value = Wire.class, names = {"NIO", "NIO_TLS"})
    void answersOfOneBurstAreTimedUntilItsLastIsMade(Wire wire) {
        Recorder observer = new Recorder();
        AtomicLong slow = new AtomicLong();
        try (TestServer server = TestServer.start(wire, router(slow), observer, b -> b.loops(1));
             RawClient client = server.raw()) {
            exchange(client, "/fast", "/slow"); // the first requests' paths are cold
            observer.answers.clear();

            exchange(client, "/fast", "/fast", "/slow");

            assertThat(observer.answers).extracting(Answered::route).containsExactly("/fast", "/fast", "/slow");
            for (Answered fast : observer.answers.subList(0, 2)) {
                assertThat(fast.nanos()).as("a fast answer waits in the burst's write for the slow one")
                        .isGreaterThanOrEqualTo(slow.get());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Ending.class)
    void answersOfABurstAreReportedInOrderBeforeItsEndLeaves(Ending ending) {
        LateRecorder observer = new LateRecorder();
        try (TestServer server = TestServer.start(Wire.NIO, router(new AtomicLong()), observer, b -> b.loops(1));
             RawClient client = server.raw()) {
            client.send(burst("/fast", "/fast") + ending.request);
            for (int i = 0; i < 3; i++) client.read();

            assertThat(observer.routes).as("reported before the client has the burst's last answer")
                    .startsWith("/fast 200", "/fast 200").endsWith(ending.reported.toArray(String[]::new))
                    .hasSize(2 + ending.reported.size());
        }
    }

    @Test
    void withTheAccessLogEachAnswerIsTimedAsItIsMade() {
        Recorder observer = new Recorder();
        AtomicLong slow = new AtomicLong();
        try (TestServer server = TestServer.startWithAccessLog(Wire.NIO, router(slow), new ByteArrayOutputStream(), observer, b -> b.loops(1));
             RawClient client = server.raw()) {
            exchange(client, "/fast", "/slow"); // the first requests' paths are cold
            observer.answers.clear();

            exchange(client, "/fast", "/slow");

            assertThat(observer.answers).extracting(Answered::route).containsExactly("/fast", "/slow");
            assertThat(observer.answers.getFirst().nanos()).as("timed before the slow handler ran").isLessThan(slow.get());
        }
    }
}
