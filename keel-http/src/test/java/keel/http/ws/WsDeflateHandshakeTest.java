package keel.http.ws;

import keel.http.router.Router;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The server's permessage-deflate negotiation over a raw socket (RFC 7692 §7.1): what the 101 agrees to, and 400s. */
class WsDeflateHandshakeTest {
    private static final Router ROUTER = new Router().ws("/ws", new WsListener() {
    });

    /** The response head (and body, for a refusal) to an upgrade with these Sec-WebSocket-Extensions fields. */
    private static String answer(WsServer server, String... extensionFields) {
        StringBuilder fields = new StringBuilder();
        for (String field : extensionFields) fields.append("Sec-WebSocket-Extensions: ").append(field).append("\r\n");
        try (RawWsClient client = RawWsClient.connect(server.port())) {
            String head = client.send(RawWsClient.handshake("/ws", fields.toString())).readHead();
            return head.startsWith("HTTP/1.1 101 ") ? head : head + client.readBody();
        }
    }

    private static String agreed(String head) {
        assertThat(head).startsWith("HTTP/1.1 101 ");
        return head.lines().filter(l -> l.startsWith("Sec-WebSocket-Extensions: ")).map(l -> l.substring(26)).findFirst().orElse(null);
    }

    @Test
    void agreesToTheFirstAcceptableOffer() {
        try (WsServer server = WsServer.start(ROUTER)) {
            assertThat(agreed(answer(server, "permessage-deflate; client_max_window_bits"))).isEqualTo("permessage-deflate");
            assertThat(agreed(answer(server, "x-webkit-deflate-frame", "permessage-deflate; client_no_context_takeover")))
                    .isEqualTo("permessage-deflate; client_no_context_takeover");
            assertThat(agreed(answer(server, "permessage-deflate; server_no_context_takeover; server_max_window_bits=\"15\"")))
                    .isEqualTo("permessage-deflate; server_no_context_takeover");
            // Keel compresses with a 32 KiB window only: an offer that needs a smaller one is declined for the next.
            assertThat(agreed(answer(server, "permessage-deflate; server_max_window_bits=10, permessage-deflate; client_max_window_bits=12")))
                    .isEqualTo("permessage-deflate; client_max_window_bits=12");
            assertThat(agreed(answer(server, "permessage-deflate; server_max_window_bits=10"))).isNull();
            assertThat(agreed(answer(server))).isNull();
        }
    }

    /** RFC 7692 §7.1: a server MUST decline an offer with an unknown, repeated or invalid parameter. */
    @Test
    void declinesAMalformedOfferAndTakesTheNextValidOne() {
        try (WsServer server = WsServer.start(ROUTER)) {
            String[] malformed = {
                    "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
                    "permessage-deflate; server_max_window_bits=16",
                    "permessage-deflate; client_no_context_takeover=yes",
                    "permessage-deflate; level=9"};
            for (String offer : malformed) {
                String answer = answer(server, offer);
                assertThat(answer).as(offer).startsWith("HTTP/1.1 101 ");
                assertThat(agreed(answer)).as(offer).isNull();
                assertThat(agreed(answer(server, offer + ", permessage-deflate"))).as(offer).isEqualTo("permessage-deflate");
            }
        }
    }

    @Test
    void refusesAnExtensionsFieldThatDoesNotParseWith400() {
        try (WsServer server = WsServer.start(ROUTER)) {
            String answer = answer(server, "permessage-deflate; client_max_window_bits=\"8");
            assertThat(answer).startsWith("HTTP/1.1 400 ").contains("malformed Sec-WebSocket-Extensions: ").contains("unterminated quoted value");
        }
    }

    @Test
    void withCompressionOffTheOfferIsIgnored() {
        try (WsServer server = WsServer.start(ROUTER, options -> options.wsCompression(false))) {
            assertThat(agreed(answer(server, "permessage-deflate"))).isNull();
            assertThat(agreed(answer(server, "permessage-deflate; mystery"))).as("not even read").isNull();
        }
    }

    @Test
    void withoutContextTakeoverBothSidesAreToldToReset() {
        try (WsServer server = WsServer.start(ROUTER, options -> options.wsContextTakeover(false))) {
            assertThat(agreed(answer(server, "permessage-deflate; client_max_window_bits")))
                    .isEqualTo("permessage-deflate; server_no_context_takeover; client_no_context_takeover");
        }
    }
}
