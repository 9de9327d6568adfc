package keel.http.client;

import keel.http.Response;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;
import keel.http.tls.TestCertificates;
import keel.http.ws.WsClose;
import keel.http.ws.WsEndpoint;
import keel.http.ws.WsListener;
import keel.http.ws.WsSession;
import keel.core.loop.LoopGroup;
import keel.http.ws.WsOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.net.ssl.SSLHandshakeException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Keel's client over TLS against Keel's server (nio): https, wss, trust and host name checks. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientTlsTest {
    private HttpServer server;
    private HttpClient client;

    @AfterEach
    void stop() {
        if (client != null) client.close();
        if (server != null) server.close();
    }

    private void startServer(Path certificate, Path key) throws Exception {
        Router router = new Router()
                .get("/hello", request -> Response.ok("hello over tls"))
                .post("/echo", request -> Response.bytes(200, "application/octet-stream", request.body()))
                .ws("/ws/echo", WsEndpoint.of(new WsListener() {
                    @Override
                    public void onText(WsSession session, String text) {
                        session.send("echo " + text);
                    }
                }));
        server = HttpServer.start(ServerOptions.builder().host("127.0.0.1").port(0).loops(1)
                .tlsCertificate(certificate).tlsPrivateKey(key).build(), router);
    }

    private HttpClient client(Consumer<ClientOptions.Builder> customize) {
        ClientOptions.Builder options = ClientOptions.builder().loops(1).maxResponseBodySize(16L << 20);
        customize.accept(options);
        client = HttpClient.create(options.build());
        return client;
    }

    private String https(String host, String path) {
        return "https://" + host + ":" + server.port() + path;
    }

    @Test
    void callsAnHttpsServerTrustingTheCaFromAPemFileAndReusesTheConnection() throws Exception {
        startServer(TestCertificates.serverCertPem(), TestCertificates.serverKeyPem());
        HttpClient https = client(options -> options.tlsTrust(TestCertificates.caPem()));
        for (int i = 0; i < 3; i++) {
            Response response = https.send(ClientRequest.get(https("localhost", "/hello")));
            assertThat(response.status()).isEqualTo(200);
            assertThat(new String(response.body(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("hello over tls");
        }
        assertThat(server.openConnections()).as("one pooled TLS connection carried all three calls").isEqualTo(1);
    }

    @Test
    void sendsAndReceivesTenMebibytesOverTls() throws Exception {
        startServer(TestCertificates.serverCertPem(), TestCertificates.serverKeyPem());
        HttpClient https = client(options -> options.sslContext(TestCertificates.clientContextTrustingCa()));
        byte[] body = new byte[10 << 20];
        new Random(7).nextBytes(body);
        Response response = https.send(ClientRequest.of("POST", https("localhost", "/echo")).body("application/octet-stream", body));
        assertThat(response.status()).isEqualTo(200);
        assertThat(Arrays.equals(response.body(), body)).as("the echoed 10 MiB are the bytes sent").isTrue();
    }

    @Test
    void refusesAServerItDoesNotTrust() throws Exception {
        startServer(TestCertificates.untrustedCertPem(), TestCertificates.untrustedKeyPem());
        HttpClient https = client(options -> options.tlsTrust(TestCertificates.caPem()));
        assertThatThrownBy(() -> https.send(ClientRequest.get(https("localhost", "/hello"))))
                .isInstanceOf(ConnectionFailedException.class)
                .hasCauseInstanceOf(SSLHandshakeException.class)
                .hasMessageContaining("unable to find valid certification path");
    }

    @Test
    void refusesACertificateForAnotherHostUnlessHostNameChecksAreOff() throws Exception {
        startServer(TestCertificates.wrongHostCertPem(), TestCertificates.wrongHostKeyPem());
        HttpClient checking = client(options -> options.tlsTrust(TestCertificates.caPem()));
        assertThatThrownBy(() -> checking.send(ClientRequest.get(https("localhost", "/hello"))))
                .isInstanceOf(ConnectionFailedException.class)
                .hasCauseInstanceOf(SSLHandshakeException.class)
                .hasMessageContaining("localhost");
        checking.close();
        HttpClient lenient = client(options -> options.tlsTrust(TestCertificates.caPem()).verifyHostname(false));
        assertThat(lenient.send(ClientRequest.get(https("localhost", "/hello"))).status()).isEqualTo(200);
    }

    @Test
    void opensAWssSessionAndClosesItWithAHandshake() throws Exception {
        startServer(TestCertificates.serverCertPem(), TestCertificates.serverKeyPem());
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        try (LoopGroup loops = new LoopGroup(1, "wss-test");
             WebSocketClient webSockets = new WebSocketClient(loops, WsOptions.defaults(),
                     ClientOptions.builder().tlsTrust(TestCertificates.caPem()).build().tls())) {
            WsSession session = webSockets.connect(URI.create("wss://localhost:" + server.port() + "/ws/echo"), new WsListener() {
                @Override
                public void onText(WsSession s, String text) {
                    received.add(text);
                }
            }).get(10, TimeUnit.SECONDS);
            for (String word : new String[]{"one", "two", "three"}) {
                session.send(word);
                assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo("echo " + word);
            }
            session.close(WsClose.NORMAL, "done").toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aWssConnectionToAnUntrustedServerFails() throws Exception {
        startServer(TestCertificates.untrustedCertPem(), TestCertificates.untrustedKeyPem());
        try (LoopGroup loops = new LoopGroup(1, "wss-test");
             WebSocketClient webSockets = new WebSocketClient(loops, WsOptions.defaults(),
                     ClientOptions.builder().tlsTrust(TestCertificates.caPem()).build().tls())) {
            assertThatThrownBy(() -> webSockets.connect(URI.create("wss://localhost:" + server.port() + "/ws/echo"), new WsListener() {
            }).get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(SSLHandshakeException.class);
        }
    }
}
