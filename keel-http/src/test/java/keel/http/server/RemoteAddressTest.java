package keel.http.server;

import keel.http.Execution;
import keel.http.Handler;
import keel.http.Headers;
import keel.http.Request;
import keel.http.Response;
import keel.http.router.Router;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.InetSocketAddress;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every request carries the two ends of the connection it came in on: {@code remoteAddress()} is the
 * client's socket, {@code localAddress()} the server's, on every wire, for each request of a
 * keep-alive or pipelined connection, whatever execution its handler runs under.
 */
class RemoteAddressTest {
    private static final Handler ENDS = request -> Response.ok(ends(request));

    private static String ends(Request request) {
        return text(request.remoteAddress()) + " -> " + text(request.localAddress());
    }

    private static String text(InetSocketAddress address) {
        return address.getHostString() + ":" + address.getPort();
    }

    private static Router router() {
        Router router = new Router().get("/", ENDS);
        router.with(Execution.EVENT_LOOP).get("/loop", ENDS);
        router.with(Execution.VIRTUAL_THREAD).get("/virtual", ENDS);
        return router;
    }

    /** What {@code client}'s requests should answer: its own end, then the server's. */
    private static String expected(RawClient client, TestServer server) {
        return text(client.localAddress()) + " -> 127.0.0.1:" + server.port();
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void eachRequestOfAKeepAliveConnectionCarriesBothEnds(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            for (String target : new String[]{"/", "/loop", "/virtual", "/"}) {
                RawClient.RawResponse response = client.send(RawClient.get(target)).read();
                assertThat(response.body()).as(target).isEqualTo(expected(client, server));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void pipelinedRequestsAllCarryBothEnds(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            StringBuilder burst = new StringBuilder();
            for (int i = 0; i < 8; i++) burst.append(RawClient.get(i % 2 == 0 ? "/virtual" : "/loop"));
            client.send(burst.toString());
            for (int i = 0; i < 8; i++) assertThat(client.read().body()).as("response %d", i).isEqualTo(expected(client, server));
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void eachConnectionCarriesItsOwnPeer(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient first = server.raw(); RawClient second = server.raw()) {
            assertThat(first.localAddress().getPort()).isNotEqualTo(second.localAddress().getPort());
            assertThat(second.send(RawClient.get("/")).read().body()).isEqualTo(expected(second, server));
            assertThat(first.send(RawClient.get("/")).read().body()).isEqualTo(expected(first, server));
        }
    }

    @Test
    void aRequestBuiltWithoutAConnectionHasNoAddressesAndCopiesKeepThem() {
        Request alone = new Request("GET", "/", true, true, Headers.empty(), new byte[0]);
        assertThat(alone.remoteAddress()).isNull();
        assertThat(alone.localAddress()).isNull();
        InetSocketAddress peer = new InetSocketAddress("192.0.2.7", 40_000);
        InetSocketAddress local = new InetSocketAddress("192.0.2.1", 8080);
        Request copy = new Request("GET", "/", true, true, Headers.empty(), new byte[0], peer, local, null)
                .withPathParams(Map.of("id", "1")).withDecodedBody(body -> body);
        assertThat(copy.remoteAddress()).isSameAs(peer);
        assertThat(copy.localAddress()).isSameAs(local);
    }
}
