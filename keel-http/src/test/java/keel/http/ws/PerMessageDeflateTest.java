package keel.http.ws;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Sec-WebSocket-Extensions syntax and the permessage-deflate negotiation of RFC 7692 §7.1, on both sides. */
class PerMessageDeflateTest {
    private static PerMessageDeflate server(String... fieldValues) {
        return PerMessageDeflate.negotiate(ExtensionHeader.parse(List.of(fieldValues)), true);
    }

    private static PerMessageDeflate client(String answer) {
        return PerMessageDeflate.accept(ExtensionHeader.parse(List.of(answer)), true, true);
    }

    @Test
    void parsesExtensionsWithTokenAndQuotedParametersAcrossFields() {
        List<ExtensionHeader.Extension> parsed = ExtensionHeader.parse(List.of(
                " foo ,permessage-deflate ; client_max_window_bits=\"10\";server_no_context_takeover,, ",
                "x-webkit-deflate-frame; no_context_takeover; q=\"a\\\"b\""));
        assertThat(parsed).containsExactly(
                new ExtensionHeader.Extension("foo", List.of()),
                new ExtensionHeader.Extension("permessage-deflate", List.of(
                        new ExtensionHeader.Param("client_max_window_bits", "10"),
                        new ExtensionHeader.Param("server_no_context_takeover", null))),
                new ExtensionHeader.Extension("x-webkit-deflate-frame", List.of(
                        new ExtensionHeader.Param("no_context_takeover", null), new ExtensionHeader.Param("q", "a\"b"))));
    }

    @Test
    void refusesMalformedSyntax() {
        for (String bad : new String[]{"permessage-deflate;", "permessage-deflate; =1", "permessage-deflate x", "a; b=\"open",
                "a; b=", "p@d", "a; b=\"\u0001\""}) {
            assertThatThrownBy(() -> ExtensionHeader.parse(List.of(bad))).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void acceptsThePlainOfferAndEchoesTheNoContextTakeoverParameters() {
        assertThat(server("permessage-deflate").header()).isEqualTo("permessage-deflate");
        assertThat(server("permessage-deflate; client_max_window_bits").header()).isEqualTo("permessage-deflate");
        assertThat(server("permessage-deflate; server_max_window_bits=15").header()).isEqualTo("permessage-deflate");
        PerMessageDeflate both = server("permessage-deflate; client_no_context_takeover; server_no_context_takeover");
        assertThat(both).isEqualTo(new PerMessageDeflate(true, true, 15, 15));
        assertThat(both.header()).isEqualTo("permessage-deflate; server_no_context_takeover; client_no_context_takeover");
        // A smaller client window only concerns Keel's inflater, which reads any window: accepted and stated.
        assertThat(server("permessage-deflate; client_max_window_bits=9").header()).isEqualTo("permessage-deflate; client_max_window_bits=9");
    }

    @Test
    void declinesAnOfferThatNeedsASmallerServerWindowAndTakesTheNextOne() {
        assertThat(server("permessage-deflate; server_max_window_bits=10")).isNull();
        assertThat(server("permessage-deflate; server_max_window_bits=10; server_no_context_takeover",
                "permessage-deflate; client_no_context_takeover")).isEqualTo(new PerMessageDeflate(false, true, 15, 15));
        assertThat(server("x-webkit-deflate-frame", "foo")).isNull();
        assertThat(server()).isNull();
    }

    @Test
    void withoutContextTakeoverTheServerTellsBothSidesToReset() {
        PerMessageDeflate agreed = PerMessageDeflate.negotiate(ExtensionHeader.parse(List.of("permessage-deflate")), false);
        assertThat(agreed.header()).isEqualTo("permessage-deflate; server_no_context_takeover; client_no_context_takeover");
    }

    @Test
    void declinesMalformedOffersAndTakesTheNextAcceptableOne() {
        for (String bad : new String[]{"permessage-deflate; server_no_context_takeover; server_no_context_takeover",
                "permessage-deflate; client_max_window_bits=10; client_max_window_bits", "permessage-deflate; server_max_window_bits",
                "permessage-deflate; server_max_window_bits=16", "permessage-deflate; server_max_window_bits=7",
                "permessage-deflate; server_max_window_bits=08", "permessage-deflate; client_max_window_bits=\"1 0\"",
                "permessage-deflate; client_no_context_takeover=1", "permessage-deflate; mystery"}) {
            assertThat(server(bad)).as(bad).isNull(); // RFC 7692 §7.1: declined
            assertThat(server(bad + ", permessage-deflate")).as(bad + ", then a good offer").isNotNull();
        }
    }

    @Test
    void theClientOffersNoClientWindowAndReadsTheServersAnswer() {
        assertThat(PerMessageDeflate.offer(true)).isEqualTo("permessage-deflate");
        assertThat(PerMessageDeflate.offer(false)).isEqualTo("permessage-deflate; server_no_context_takeover; client_no_context_takeover");
        assertThat(client("permessage-deflate")).isEqualTo(new PerMessageDeflate(false, false, 15, 15));
        // Any window the server compresses with is fine for the JDK's inflater.
        assertThat(client("permessage-deflate; server_max_window_bits=8; server_no_context_takeover; client_no_context_takeover"))
                .isEqualTo(new PerMessageDeflate(true, true, 8, 15));
        assertThat(PerMessageDeflate.accept(List.of(), true, true)).isNull();
        assertThat(PerMessageDeflate.accept(ExtensionHeader.parse(List.of("permessage-deflate")), true, false).clientNoContextTakeover())
                .as("a client that offered no context takeover resets whatever the answer says").isTrue();
    }

    @Test
    void theClientRefusesAnAnswerThatIsMalformedOrWasNotOffered() {
        for (String bad : new String[]{"permessage-deflate; client_max_window_bits=10", "permessage-deflate; client_max_window_bits",
                "permessage-deflate; server_max_window_bits", "permessage-deflate; server_max_window_bits=16",
                "permessage-deflate; server_no_context_takeover; server_no_context_takeover", "permessage-deflate; mystery",
                "x-webkit-deflate-frame", "permessage-deflate, permessage-deflate"}) {
            assertThatThrownBy(() -> client(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> PerMessageDeflate.accept(ExtensionHeader.parse(List.of("permessage-deflate")), false, true))
                .hasMessageContaining("not offered");
    }
}
