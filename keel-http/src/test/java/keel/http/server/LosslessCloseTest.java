package keel.http.server;

import keel.http.Response;
import keel.http.router.Router;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server-initiated close with unread input must not reset the connection: a reset can destroy the
 * response still in the client's receive buffer. The raw client fails on a reset (and over TLS on an
 * end without close_notify), so each test proves the full response arrived and was followed by a clean EOF.
 */
class LosslessCloseTest {
    private static final int LARGE = 4 * 1024 * 1024;

    private static Router routes() {
        byte[] large = new byte[LARGE];
        Arrays.fill(large, (byte) 'k');
        return new Router()
                .get("/small", request -> Response.ok("small"))
                .get("/large", request -> Response.bytes(200, "application/octet-stream", large));
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void connectionCloseWithTrailingUnreadBytesDeliversTheResponseAndAFin(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, routes()); RawClient client = server.raw()) {
            byte[] trailing = new byte[200_000];
            Arrays.fill(trailing, (byte) 'x');
            client.send("GET /small HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\nGET /small HTTP/1.1\r\nHost: t\r\n\r\n");
            client.send(trailing);
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("small");
            assertThat(response.header("connection")).isEqualTo("close");
            assertThat(client.readToEnd()).as("nothing after the response, then EOF (a reset would throw)").isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void aLargeResponseStillBeingWrittenSurvivesBytesArrivingBehindIt(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, routes()); RawClient client = server.raw()) {
            client.send("GET /large HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
            client.send("more bytes the server will never read\r\n".repeat(1000).getBytes(StandardCharsets.ISO_8859_1));
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).hasSize(LARGE);
            assertThat(response.body().chars().allMatch(c -> c == 'k')).isTrue();
            assertThat(client.readToEnd()).isEmpty();
        }
    }
}
