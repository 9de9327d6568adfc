package keel.core.tls;

import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TlsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static SSLContext context() throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, null, null);
        return context;
    }

    @Test
    void aServerEngineOffersTheProtocolsAlpnAndClientAuthentication() throws Exception {
        SSLEngine engine = Tls.server(context(), null, ClientAuth.NEED, TIMEOUT).newServerEngine();
        assertThat(engine.getUseClientMode()).isFalse();
        assertThat(engine.getEnabledProtocols()).containsExactly("TLSv1.3", "TLSv1.2");
        assertThat(engine.getSSLParameters().getApplicationProtocols()).containsExactly("http/1.1");
        assertThat(engine.getNeedClientAuth()).isTrue();
        assertThat(Tls.server(context(), List.of("TLSv1.3"), ClientAuth.WANT, TIMEOUT).newServerEngine())
                .satisfies(e -> assertThat(e.getWantClientAuth()).isTrue())
                .satisfies(e -> assertThat(e.getEnabledProtocols()).containsExactly("TLSv1.3"));
    }

    @Test
    void aClientEngineIsForItsPeerAndChecksTheHostNameWhenAsked() throws Exception {
        SSLEngine engine = Tls.client(context(), null, TIMEOUT, true).newClientEngine("example.com", 443);
        assertThat(engine.getUseClientMode()).isTrue();
        assertThat(engine.getPeerHost()).isEqualTo("example.com");
        assertThat(engine.getPeerPort()).isEqualTo(443);
        assertThat(engine.getSSLParameters().getEndpointIdentificationAlgorithm()).isEqualTo("HTTPS");
        assertThat(engine.getSSLParameters().getApplicationProtocols()).containsExactly("http/1.1");
        assertThat(Tls.client(context(), null, TIMEOUT, false).newClientEngine("127.0.0.1", 8443).getSSLParameters()
                .getEndpointIdentificationAlgorithm()).isNull();
    }

    @Test
    void refusesProtocolsBelowTls12AndUnknownNames() throws Exception {
        SSLContext context = context();
        assertThatThrownBy(() -> Tls.server(context, List.of("TLSv1.2", "TLSv1.1"), ClientAuth.NONE, TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TLSv1.1 is below TLSv1.2");
        assertThatThrownBy(() -> Tls.client(context, List.of("TLSv2"), TIMEOUT, true)).hasMessageContaining("unknown TLS protocol 'TLSv2'");
        assertThatThrownBy(() -> Tls.client(context, List.of(), TIMEOUT, true)).hasMessageContaining("at least one");
        assertThatThrownBy(() -> Tls.server(context, null, ClientAuth.NONE, Duration.ZERO)).hasMessageContaining("handshake timeout");
    }

    @Test
    void aServerTlsMakesNoClientEnginesAndTheOtherWayRound() throws Exception {
        assertThatThrownBy(() -> Tls.server(context(), null, ClientAuth.NONE, TIMEOUT).newClientEngine("localhost", 1))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Tls.client(context(), null, TIMEOUT, true).newServerEngine()).isInstanceOf(IllegalStateException.class);
    }
}
