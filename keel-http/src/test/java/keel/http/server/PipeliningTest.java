package keel.http.server;

import keel.http.Execution;
import keel.http.Request;
import keel.http.Response;
import keel.http.router.Router;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pipelined requests (many requests in one write, before any response is read) are answered in
 * request order, whatever execution their handlers run under, and the connection stays usable.
 */
class PipeliningTest {

    private static String seq(Request req) {
        return req.queryParam("i").orElse("?");
    }

    private static Response sleepThenAnswer(Request req, String kind) {
        int millis = Integer.parseInt(req.queryParam("ms").orElse("0"));
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Response.ok(kind + " i=" + seq(req));
    }

    private static Router router() {
        Router router = new Router()
                .get("/echo", req -> Response.ok("i=" + seq(req)))
                .post("/echo", req -> Response.ok("post i=" + seq(req) + " body=" + req.bodyText()))
                .get("/big", req -> Response.ok(seq(req) + ":" + "x".repeat(2_000)));
        router.with(Execution.EVENT_LOOP).get("/loop", req -> Response.ok("loop i=" + seq(req)));
        router.with(Execution.WORKER_POOL).get("/worker", req -> sleepThenAnswer(req, "worker"));
        router.with(Execution.VIRTUAL_THREAD).get("/virtual", req -> sleepThenAnswer(req, "virtual"));
        return router;
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers100PipelinedGetsInOrderAndKeepsTheConnectionOpen(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            StringBuilder burst = new StringBuilder();
            for (int i = 0; i < 100; i++) burst.append(RawClient.get("/echo?i=" + i));
            client.send(burst.toString());
            for (int i = 0; i < 100; i++) {
                RawClient.RawResponse response = client.read();
                assertThat(response.status()).as("response %d", i).isEqualTo(200);
                assertThat(response.body()).as("response %d", i).isEqualTo("i=" + i);
                assertThat(response.header("Connection")).as("response %d", i).isNull();
                assertThat(response.header("Content-Length")).isEqualTo(Integer.toString(("i=" + i).length()));
            }
            client.send(RawClient.get("/echo?i=100"));
            RawClient.RawResponse last = client.read();
            assertThat(last.status()).isEqualTo(200);
            assertThat(last.body()).isEqualTo("i=100");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answersPipelinedMixOfGetsAndPostsWithBodiesInOrder(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            // The second body looks like a request: it must be read as body bytes, never as a request.
            String smuggled = "GET /echo?i=666 HTTP/1.1\r\nHost: x\r\n\r\n";
            client.send(RawClient.get("/echo?i=0")
                    + "POST /echo?i=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                    + "POST /echo?i=2 HTTP/1.1\r\nHost: x\r\nContent-Length: " + smuggled.length() + "\r\n\r\n" + smuggled
                    + RawClient.get("/echo?i=3")
                    + "POST /echo?i=4 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n"
                    + "POST /echo?i=5 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
                    + "POST /echo?i=6 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + RawClient.get("/echo?i=7"));
            String[] expected = {
                    "i=0",
                    "post i=1 body=hello",
                    "post i=2 body=" + smuggled,
                    "i=3",
                    "post i=4 body=abcdefg",
                    "post i=5 body=",
                    "post i=6 body=",
                    "i=7",
            };
            for (int i = 0; i < expected.length; i++) {
                RawClient.RawResponse response = client.read();
                assertThat(response.status()).as("response %d", i).isEqualTo(200);
                assertThat(response.body()).as("response %d", i).isEqualTo(expected[i]);
            }
            client.timeout(300);
            assertThat(client.closedByServer()).as("no extra response, connection still open").isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void keepsRequestOrderWhenEarlierWorkerPoolRequestsAreSlower(Wire wire) {
        assertOrderWithSlowEarlierRequests(wire, "/worker", "worker");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void keepsRequestOrderWhenEarlierVirtualThreadRequestsAreSlower(Wire wire) {
        assertOrderWithSlowEarlierRequests(wire, "/virtual", "virtual");
    }

    private static void assertOrderWithSlowEarlierRequests(Wire wire, String path, String kind) {
        int count = 12;
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            StringBuilder burst = new StringBuilder();
            for (int i = 0; i < count; i++) {
                // Slow handlers get decreasing delays; event-loop and default-execution requests are interleaved.
                if (i % 3 == 0) burst.append(RawClient.get(path + "?i=" + i + "&ms=" + (count - i) * 10));
                else if (i % 3 == 1) burst.append(RawClient.get("/loop?i=" + i));
                else burst.append(RawClient.get("/echo?i=" + i));
            }
            client.send(burst.toString());
            for (int i = 0; i < count; i++) {
                String expected = i % 3 == 0 ? kind + " i=" + i : i % 3 == 1 ? "loop i=" + i : "i=" + i;
                RawClient.RawResponse response = client.read();
                assertThat(response.status()).as("response %d", i).isEqualTo(200);
                assertThat(response.body()).as("response %d", i).isEqualTo(expected);
            }
            client.send(RawClient.get(path + "?i=last&ms=1"));
            assertThat(client.read().body()).isEqualTo(kind + " i=last");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answersLargePipelinedBurstInOrderWhenClientReadsOnlyAfterSendingEverything(Wire wire) throws Exception {
        int count = 1_000; // ~40 KB of requests, ~2 MB of responses: past the read buffer and the write high water mark
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            StringBuilder burst = new StringBuilder();
            for (int i = 0; i < count; i++) burst.append(RawClient.get("/big?i=" + i));
            byte[] bytes = burst.toString().getBytes(StandardCharsets.ISO_8859_1);
            CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> client.send(bytes));
            sent.get(10, TimeUnit.SECONDS);
            for (int i = 0; i < count; i++) {
                RawClient.RawResponse response = client.read();
                assertThat(response.status()).isEqualTo(200);
                assertThat(response.body()).as("response %d", i).startsWith(i + ":").hasSize(Integer.toString(i).length() + 2_001);
            }
            client.send(RawClient.get("/echo?i=after"));
            assertThat(client.read().body()).isEqualTo("i=after");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answersHugePipelinedStreamInOrderWhileClientWritesAndReadsConcurrently(Wire wire) throws Exception {
        int count = 4_000; // more requests than socket buffers hold: the server must pause reading while output backs up
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
                StringBuilder batch = new StringBuilder();
                for (int i = 0; i < count; i++) {
                    batch.append(RawClient.get(i % 2 == 0 ? "/big?i=" + i : "/echo?i=" + i));
                    if (batch.length() > 8_000 || i == count - 1) {
                        client.send(batch.toString());
                        batch.setLength(0);
                    }
                }
            });
            for (int i = 0; i < count; i++) {
                RawClient.RawResponse response = client.read();
                assertThat(response.status()).isEqualTo(200);
                if (i % 2 == 0) assertThat(response.body()).as("response %d", i).startsWith(i + ":");
                else assertThat(response.body()).as("response %d", i).isEqualTo("i=" + i);
            }
            sent.get(10, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answersRequestsSplitAtEveryByteBoundaryAcrossPipelinedWrites(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            String two = RawClient.get("/echo?i=1") + "POST /echo?i=2 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc";
            // Writes of 1, 2, 3, ... bytes: every request ends in the middle of some write.
            int position = 0;
            for (int size = 1; position < two.length(); size++) {
                int end = Math.min(two.length(), position + size);
                client.send(two.substring(position, end));
                position = end;
                Thread.sleep(1);
            }
            assertThat(client.read().body()).isEqualTo("i=1");
            assertThat(client.read().body()).isEqualTo("post i=2 body=abc");
        }
    }
}
