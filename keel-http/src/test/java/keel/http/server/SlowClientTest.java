package keel.http.server;

import keel.http.Response;
import keel.http.router.Router;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.UncheckedIOException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clients too slow to be worth a connection: a body that falls behind {@code timeouts.body-min-rate}
 * is answered 408, a client that stops reading its responses is closed after
 * {@code timeouts.write-stall}; each is counted by reason, on every wire.
 */
class SlowClientTest {
    private static final int MIB = 1024 * 1024;

    private static Router router() {
        return new Router()
                .post("/upload", request -> Response.ok("got " + request.body().length))
                .get("/big", request -> Response.bytes(200, "application/octet-stream", new byte[MIB]));
    }

    /** 1000 bytes/s with 200 ms of credit: a byte per 20 ms (50 bytes/s) is too slow after some 210 ms. */
    private static TestServer startWithRate(Wire wire, ReasonCounter reasons) {
        return TestServer.start(wire, router(), reasons, b -> b.bodyMinRate(1_000).bodyRateWindow(Duration.ofMillis(200)));
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers408ThenEofWhenABodyFallsBehindTheMinimumRate(Wire wire) throws Exception {
        ReasonCounter reasons = new ReasonCounter();
        try (TestServer server = startWithRate(wire, reasons); RawClient client = server.raw()) {
            long start = System.nanoTime();
            client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n");
            for (int i = 0; i < 25; i++) { // 500 ms of trickle; the server drains it while it closes lingering
                client.send("x");
                Thread.sleep(20);
            }
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(408);
            assertThat(response.body()).isEqualTo("request body slower than 1000 bytes/s\n");
            assertThat(response.header("Connection")).isEqualTo("close");
            assertThat(client.closedByServer()).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("far sooner than the idle timeout").isLessThan(Duration.ofSeconds(5));
            assertThat(reasons.await(ServerObserver.Timeout.BODY_TOO_SLOW, 1)).isEqualTo(1);
            assertThat(reasons.count(ServerObserver.Timeout.BODY_STALLED)).isZero();
        }
    }

    /** A body that keeps up with the rate takes longer than the window and still arrives whole: no total deadline. */
    @ParameterizedTest
    @EnumSource(Wire.class)
    void acceptsABodyThatKeepsUpWithTheMinimumRateHoweverLongItTakes(Wire wire) throws Exception {
        ReasonCounter reasons = new ReasonCounter();
        try (TestServer server = startWithRate(wire, reasons); RawClient client = server.raw()) {
            client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 2000\r\n\r\n");
            for (int i = 0; i < 40; i++) { // 50 bytes per 20 ms, 2500 bytes/s, for some 800 ms: four windows
                client.send("y".repeat(50));
                Thread.sleep(20);
            }
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("got 2000");
            assertThat(reasons.count(ServerObserver.Timeout.BODY_TOO_SLOW)).isZero();
        }
    }

    /**
     * A client that pipelines requests for large bodies and never reads: once the socket buffers are full
     * the write makes no progress, and the connection closes after the write-stall timeout (the idle
     * timeout stays at its minute), counted once.
     */
    @ParameterizedTest
    @EnumSource(Wire.class)
    void closesAConnectionWhoseClientPipelinesRequestsAndNeverReads(Wire wire) throws Exception {
        ReasonCounter reasons = new ReasonCounter();
        try (TestServer server = TestServer.start(wire, router(), reasons, b -> b.writeStallTimeout(Duration.ofMillis(300))
                .lingerDrain(Duration.ofMillis(100)));
             RawClient client = server.raw()) {
            long start = System.nanoTime();
            try {
                for (int i = 0; i < 32; i++) client.send(RawClient.get("/big")); // 32 MiB of answers: far more than the socket buffers hold
            } catch (UncheckedIOException closed) {
                // the server may close before the last requests are written
            }
            assertThat(reasons.await(ServerObserver.Timeout.WRITE_STALLED, 1)).isEqualTo(1);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the write-stall timeout, not the idle one").isLessThan(Duration.ofSeconds(5));
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (server.server().openConnections() > 0 && System.nanoTime() - deadline < 0) Thread.sleep(10);
            assertThat(server.server().openConnections()).as("stalled connection closed").isZero();
            assertThat(reasons.count(ServerObserver.Timeout.IDLE)).isZero();
        }
    }
}
