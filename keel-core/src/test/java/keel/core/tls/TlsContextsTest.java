package keel.core.tls;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Contexts built from files, checked by real handshakes over loopback sockets. */
class TlsContextsTest {
    @TempDir
    static Path dir;
    static SelfSigned material;

    @BeforeAll
    static void makeCertificate() throws Exception {
        material = SelfSigned.create(dir);
    }

    /** What a server saw of one handshake: the client's certificate subject (or null), the protocol, the ALPN choice. */
    private record Seen(String peer, String protocol, String applicationProtocol) {
    }

    /** Accepts one connection with {@code server}'s TLS, echoes one byte; the client connects with {@code client}'s. */
    private static Seen handshake(Tls server, Tls client) throws Exception {
        try (SSLServerSocket listener = (SSLServerSocket) server.context().getServerSocketFactory().createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            listener.setSSLParameters(server.serverParameters());
            CompletableFuture<Seen> seen = CompletableFuture.supplyAsync(() -> {
                try (SSLSocket accepted = (SSLSocket) listener.accept()) {
                    accepted.setSoTimeout(5_000);
                    int b = accepted.getInputStream().read();
                    accepted.getOutputStream().write(b);
                    accepted.getOutputStream().flush();
                    return new Seen(peerSubject(accepted), accepted.getSession().getProtocol(), accepted.getApplicationProtocol());
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try (SSLSocket socket = (SSLSocket) client.context().getSocketFactory().createSocket("localhost", listener.getLocalPort())) {
                socket.setSoTimeout(5_000);
                socket.setSSLParameters(client.newClientEngine("localhost", listener.getLocalPort()).getSSLParameters());
                socket.getOutputStream().write(42);
                socket.getOutputStream().flush();
                assertThat(socket.getInputStream().read()).isEqualTo(42);
            }
            return seen.get(5, TimeUnit.SECONDS);
        }
    }

    private static String peerSubject(SSLSocket socket) {
        try {
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
        } catch (SSLPeerUnverifiedException noClientCertificate) {
            return null;
        }
    }

    private static Tls server(SSLContext context, ClientAuth clientAuth) {
        return Tls.server(context, null, clientAuth, Duration.ofSeconds(5));
    }

    private static Tls client(SSLContext context) {
        return Tls.client(context, null, Duration.ofSeconds(5), true);
    }

    @Test
    void aServerFromPemFilesShakesHandsWithAClientTrustingItsCertificate() throws Exception {
        Seen seen = handshake(server(TlsContexts.server(material.certificatePem(), material.keyPem(), null), ClientAuth.NONE),
                client(TlsContexts.client(material.certificatePem())));
        assertThat(seen.protocol()).isEqualTo("TLSv1.3");
        assertThat(seen.applicationProtocol()).isEqualTo("http/1.1");
    }

    @Test
    void aServerFromAPkcs12KeystoreShakesHandsToo() throws Exception {
        Seen seen = handshake(server(TlsContexts.server(material.p12(), material.password(), null), ClientAuth.NONE),
                client(TlsContexts.client(material.certificatePem())));
        assertThat(seen.protocol()).isEqualTo("TLSv1.3");
    }

    @Test
    void aClientOnTheDefaultTrustStoreRefusesASelfSignedServer() throws Exception {
        Tls server = server(TlsContexts.server(material.certificatePem(), material.keyPem(), null), ClientAuth.NONE);
        assertThatThrownBy(() -> handshake(server, client(TlsContexts.client(null))))
                .isInstanceOf(SSLHandshakeException.class)
                .satisfies(e -> assertThat(HandshakeFailures.reason(e)).isEqualTo(HandshakeFailures.CERTIFICATE));
    }

    @Test
    void mutualTlsShowsTheServerTheClientsCertificate() throws Exception {
        Tls server = server(TlsContexts.server(material.certificatePem(), material.keyPem(), material.certificatePem()), ClientAuth.NEED);
        Tls client = client(TlsContexts.client(material.certificatePem(), material.certificatePem(), material.keyPem()));
        assertThat(handshake(server, client).peer()).isEqualTo("CN=localhost");
    }

    @Test
    void aKeyThatIsNotTheCertificatesIsRefusedNamingBothFiles() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        Path other = Files.writeString(dir.resolve("other-key.pem"), SelfSigned.pem("PRIVATE KEY", generator.generateKeyPair().getPrivate().getEncoded()));
        assertThatThrownBy(() -> TlsContexts.server(material.certificatePem(), other, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(other.toString()).hasMessageContaining(material.certificatePem().toString())
                .hasMessageContaining("does not belong");
    }

    @Test
    void aWrongKeystorePasswordNamesTheKeystore() {
        assertThatThrownBy(() -> TlsContexts.server(material.p12(), "wrong".toCharArray(), null))
                .isInstanceOf(IOException.class).hasMessageContaining(material.p12().toString()).hasMessageContaining("password");
    }

    @Test
    void aTrustFileWithoutCertificatesIsRefusedNamingIt() {
        assertThatThrownBy(() -> TlsContexts.client(material.keyPem()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(material.keyPem().toString());
    }
}
