package keel.http.server;

import keel.http.Response;
import keel.http.router.Router;
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
 * write, so they are timed together as the burst's last is made, and each is reported before its
 * bytes can reach the client. With the access log on, each is timed as it is made.
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
        return router;
    }

    private static String burst(String... paths) {
        StringBuilder text = new StringBuilder();
        for (String path : paths) text.append(RawClient.get(path));
        return text.toString();
    }

    @ParameterizedTest
    @EnumSource(value = Wire.class, names = {"NIO", "NIO_TLS"})
    void answersOfOneBurstAreTimedUntilItsLastIsMadeAndReportedBeforeTheyLeave(Wire wire) {
        Recorder observer = new Recorder();
        AtomicLong slow = new AtomicLong();
        try (TestServer server = TestServer.start(wire, router(slow), observer, b -> b.loops(1));
             RawClient client = server.raw()) {
            client.send(burst("/fast", "/slow")); // the first requests' paths are cold
            for (int i = 0; i < 2; i++) assertThat(client.read().status()).isEqualTo(200);
            observer.answers.clear();

            client.send(burst("/fast", "/fast", "/slow"));
            for (int i = 0; i < 3; i++) assertThat(client.read().status()).isEqualTo(200);

            assertThat(observer.answers).as("every answer is reported before the client reads it")
                    .extracting(Answered::route).containsExactly("/fast", "/fast", "/slow");
            for (Answered fast : observer.answers.subList(0, 2)) {
                assertThat(fast.nanos()).as("a fast answer waits in the burst's write for the slow one")
                        .isGreaterThanOrEqualTo(slow.get());
            }
        }
    }

    @Test
    void answersOfABurstThatClosesAreReportedBeforeTheEnd() throws Exception {
        Recorder observer = new Recorder();
        try (TestServer server = TestServer.start(Wire.NIO, router(new AtomicLong()), observer, b -> b.loops(1));
             RawClient client = server.raw()) {
            client.send(burst("/fast", "/fast") + "GET /fast HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            for (int i = 0; i < 3; i++) assertThat(client.read().status()).isEqualTo(200);
            assertThat(client.closedByServer()).isTrue();

            assertThat(observer.answers).extracting(Answered::route).containsExactly("/fast", "/fast", "/fast");
        }
    }

    @Test
    void withTheAccessLogEachAnswerIsTimedAsItIsMade() {
        Recorder observer = new Recorder();
        AtomicLong slow = new AtomicLong();
        try (TestServer server = TestServer.startWithAccessLog(Wire.NIO, router(slow), new ByteArrayOutputStream(), observer, b -> b.loops(1));
             RawClient client = server.raw()) {
            client.send(burst("/fast", "/slow"));
            for (int i = 0; i < 2; i++) assertThat(client.read().status()).isEqualTo(200);

            assertThat(observer.answers).extracting(Answered::route).containsExactly("/fast", "/slow");
            assertThat(observer.answers.getFirst().nanos()).as("timed before the slow handler ran").isLessThan(slow.get());
        }
    }
}
