package keel.http.server;

import keel.core.tls.ClientAuth;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code server.tls.*} options: defaults, flags, and the combinations refused before a start. */
class TlsOptionsTest {
    private static final Path CERT = Path.of("cert.pem");
    private static final Path KEY = Path.of("key.pem");

    @Test
    void tlsIsOffByDefaultWithTls13And12AndATenSecondHandshake() {
        ServerOptions.Tls tls = ServerOptions.defaults().tls();
        assertThat(tls.enabled()).isFalse();
        assertThat(tls.protocols()).containsExactly("TLSv1.3", "TLSv1.2");
        assertThat(tls.handshakeTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(tls.clientAuth()).isEqualTo(ClientAuth.NONE);
    }

    @Test
    void flagsSetEveryTlsOption() {
        ServerOptions.Builder builder = ServerOptions.builder();
        ConfigKeys.applyFlag(builder, "--tls-keystore", "dev.p12");
        ConfigKeys.applyFlag(builder, "--tls-keystore-password", "changeit");
        ConfigKeys.applyFlag(builder, "--tls-protocols", "TLSv1.3, TLSv1.2");
        ConfigKeys.applyFlag(builder, "--tls-handshake-timeout", "3s");
        ConfigKeys.applyFlag(builder, "--tls-client-auth", "want");
        ConfigKeys.applyFlag(builder, "--tls-client-trust", "clients-ca.pem");
        ServerOptions.Tls tls = builder.build().tls();
        assertThat(tls.enabled()).isTrue();
        assertThat(tls.keystore()).isEqualTo(Path.of("dev.p12"));
        assertThat(tls.keystorePassword()).isEqualTo("changeit");
        assertThat(tls.protocols()).containsExactly("TLSv1.3", "TLSv1.2");
        assertThat(tls.handshakeTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(tls.clientAuth()).isEqualTo(ClientAuth.WANT);
        assertThat(tls.clientTrust()).isEqualTo(Path.of("clients-ca.pem"));
        assertThat(tls.toString()).doesNotContain("changeit");
        assertThat(builder.build().toBuilder().build()).isEqualTo(builder.build());
    }

    @Test
    void refusesCombinationsThatCannotWork() {
        assertThatThrownBy(() -> ServerOptions.builder().tlsCertificate(CERT).build()).hasMessageContaining("go together");
        assertThatThrownBy(() -> ServerOptions.builder().tlsCertificate(CERT).tlsPrivateKey(KEY).tlsKeystore(Path.of("k.p12")).build())
                .hasMessageContaining("not both");
        assertThatThrownBy(() -> ServerOptions.builder().tlsKeystorePassword("x").build()).hasMessageContaining("server.tls.keystore");
        assertThatThrownBy(() -> ServerOptions.builder().tlsCertificate(CERT).tlsPrivateKey(KEY).tlsClientAuth(ClientAuth.NEED).build())
                .hasMessageContaining("server.tls.client-trust");
        assertThatThrownBy(() -> ServerOptions.builder().tlsClientAuth(ClientAuth.WANT).tlsClientTrust(CERT).build())
                .hasMessageContaining("needs TLS");
        assertThatThrownBy(() -> ServerOptions.builder().tlsHandshakeTimeout(Duration.ZERO).build())
                .hasMessageContaining("server.tls.handshake-timeout");
        assertThatThrownBy(() -> ConfigKeys.applyFlag(ServerOptions.builder(), "--tls-protocols", "TLSv1.1"))
                .hasMessageContaining("--tls-protocols").hasMessageContaining("below TLSv1.2");
        assertThatThrownBy(() -> ConfigKeys.applyFlag(ServerOptions.builder(), "--tls-client-auth", "maybe"))
                .hasMessageContaining("none|want|need");
    }

    @Test
    void anEmptyValueMeansNotSet() {
        ServerOptions.Builder builder = ServerOptions.builder().tlsCertificate(CERT).tlsPrivateKey(KEY);
        ConfigKeys.applyFlag(builder, "--tls-cert", "");
        ConfigKeys.applyFlag(builder, "--tls-key", " ");
        assertThat(builder.build().tls().enabled()).isFalse();
    }
}
