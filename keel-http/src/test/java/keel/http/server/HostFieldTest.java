package keel.http.server;

import keel.http.Response;
import keel.http.router.Router;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RFC 9112 §3.2 with RFC 3986 §3.2.2: an HTTP/1.1 request carries exactly one {@code Host}, whose
 * value is a reg-name, an IPv4 address or a bracketed IP literal with an optional port; anything else
 * is answered 400 and the connection closed, on every wire.
 */
class HostFieldTest {
    private static final List<String> VALID = List.of("example.com", "example.com:8080", "127.0.0.1", "127.0.0.1:80",
            "[::1]", "[::1]:8443", "[2001:db8::7]:1", "xn--bcher-kva.example", "a_b~c!$&'()*+,;=d", "h%41st", "", "h:");
    private static final List<String> INVALID = List.of("exa mple.com", "example.com/path", "user@example.com",
            "example.com:80x", "example.com:123456", "[::1", "[]", "[::1]x", "h%4", "h%zz", "a\"b", "h:1:2", "{h}");

    private static Router router() {
        return new Router().get("/", request -> Response.ok("host " + request.headers().get("Host")));
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void servesEveryValidHostForm(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            for (String host : VALID) {
                client.send("GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
                RawClient.RawResponse response = client.read();
                assertThat(response.status()).as("Host: '%s'", host).isEqualTo(200);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForEveryInvalidHostAndCloses(Wire wire) throws IOException {
        for (String host : INVALID) {
            try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
                client.send("GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
                ErrorStatusTest.assertErrorThenEof(client, 400, "Bad Request", "invalid Host header");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForTwoHostFieldsAndForNone(Wire wire) throws IOException {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n");
            ErrorStatusTest.assertErrorThenEof(client, 400, "Bad Request", "more than one Host header");
        }
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n");
            ErrorStatusTest.assertErrorThenEof(client, 400, "Bad Request", "missing Host header");
        }
    }
}
