package keel.http.ws;

import keel.http.router.Router;
import keel.http.server.Transport;
import keel.http.tls.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** WebSocket over TLS ({@code wss://}) on the nio transport, the only one with WebSocket routes, through the JDK client. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WssEchoTest {

    @Test
    void echoesTextOverWssThenClosesWithTheHandshake() throws Exception {
        try (WsServer server = WsServer.start(new Router().ws("/echo", WsEchoTest.ECHO), options -> options.transport(Transport.NIO)
                .tlsCertificate(TestCertificates.serverCertPem()).tlsPrivateKey(TestCertificates.serverKeyPem()));
             HttpClient http = HttpClient.newBuilder().sslContext(TestCertificates.clientContextTrustingCa()).build()) {
            JdkWsClient client = JdkWsClient.connect(URI.create("wss://localhost:" + server.port() + "/echo"), http);
            for (String text : new String[]{"hello", "over TLS ✓", "x".repeat(70_000)}) {
                client.socket.sendText(text, true).join();
                assertThat(client.nextText()).isEqualTo(text);
            }
            client.socket.sendClose(WsClose.NORMAL, "done").join();
            assertThat(client.awaitClose()).isEqualTo("close:1000:");
            assertThat(server.awaitOpenConnections(0)).as("the connection closes after the close handshake").isTrue();
        }
    }
}
