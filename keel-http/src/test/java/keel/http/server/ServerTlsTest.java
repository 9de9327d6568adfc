package keel.http.server;

import keel.core.tls.ClientAuth;
import keel.core.tls.HandshakeFailures;
import keel.core.tls.TlsContexts;
import keel.http.Response;
import keel.http.router.Router;
import keel.http.tls.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** https on both transports, over real sockets, with the test CA's certificates. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ServerTlsTest {

    /** The TLS tests' routes; {@link TlsExchangeTest} serves them too. */
    static Router routes() {
        return new Router()
                .get("/hello", request -> Response.ok("Hello over TLS"))
                .post("/echo", request -> Response.bytes(200, "application/octet-stream", request.body()))
                .get("/whoami", request -> Response.ok(request.peerCertificates() == null ? "anonymous"
                        : request.peerCertificates().getFirst().getSubjectX500Principal().getName()));
    }

    /** A server over TLS with the test CA's certificate, on {@code transport}, adjusted by {@code customize}. */
    static HttpServer start(Transport transport, ServerObserver observer, Consumer<ServerOptions.Builder> customize) throws IOException {
        ServerOptions.Builder builder = ServerOptions.builder().host("127.0.0.1").port(0).transport(transport).loops(2)
                .lingerDrain(Duration.ofSeconds(2))
                .tlsCertificate(TestCertificates.serverCertPem()).tlsPrivateKey(TestCertificates.serverKeyPem());
        customize.accept(builder);
        return HttpServer.start(builder.build(), routes(), observer);
    }

    private static HttpClient client(SSLContext context) {
        return HttpClient.newBuilder().sslContext(context).version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    }

    private static HttpResponse<String> get(HttpClient client, String uri) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Every transport with every thread kind (the nio transport ignores the kind, but not the key source it picks). */
    static Stream<Arguments> transportsAndThreads() {
        return Stream.of(Transport.values()).flatMap(transport -> Stream.of(Threads.values()).map(threads -> Arguments.of(transport, threads)));
    }

    @ParameterizedTest
    @MethodSource("transportsAndThreads")
    void servesHttpsToTheJdkClientOnEitherThreadKind(Transport transport, Threads threads) throws Exception {
        // Platform threads read the PEM pair, virtual threads the PKCS#12 keystore: both key sources start a server.
        try (HttpServer server = start(transport, ServerObserver.NONE, b -> {
            b.threads(threads);
            if (threads == Threads.VIRTUAL) {
                b.tlsCertificate(null).tlsPrivateKey(null).tlsKeystore(TestCertificates.serverP12()).tlsKeystorePassword(TestCertificates.password());
            }
        }); HttpClient client = client(TestCertificates.clientContextTrustingCa())) {
            String base = "https://localhost:" + server.port();
            HttpResponse<String> hello = get(client, base + "/hello");
            assertThat(hello.statusCode()).isEqualTo(200);
            assertThat(hello.body()).isEqualTo("Hello over TLS");
            assertThat(hello.sslSession()).hasValueSatisfying(session -> assertThat(session.getProtocol()).isEqualTo("TLSv1.3"));
            byte[] payload = new byte[200_000];
            new java.util.Random(7).nextBytes(payload);
            HttpResponse<byte[]> echo = client.send(HttpRequest.newBuilder(URI.create(base + "/echo"))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(payload)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(echo.body()).isEqualTo(payload);
            assertThat(get(client, "https://127.0.0.1:" + server.port() + "/hello").statusCode()).as("the IP address SAN").isEqualTo(200);
            assertThat(get(client, base + "/whoami").body()).isEqualTo("anonymous");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void curlTrustingTheCaGetsTheResponse(Transport transport) throws Exception {
        try (HttpServer server = start(transport, ServerObserver.NONE, b -> { })) {
            Curl.Result curl = Curl.run(List.of("--cacert", TestCertificates.caPem().toString(), "https://localhost:" + server.port() + "/hello"));
            assertThat(curl.exitCode()).as(curl.output()).isZero();
            assertThat(curl.output()).isEqualTo("Hello over TLS");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aPlainHttpRequestToTheTlsPortGetsAClearText400AtOnce(Transport transport) throws Exception {
        ReasonCounter failures = new ReasonCounter();
        try (HttpServer server = start(transport, failures, b -> { }); RawClient client = RawClient.connect(server.port())) {
            long start = System.nanoTime();
            RawClient.RawResponse response = client.send(RawClient.get("/hello")).read(false);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(response.status()).isEqualTo(400);
            assertThat(response.header("connection")).isEqualTo("close");
            assertThat(response.body()).contains("this port speaks TLS");
            assertThat(millis).as("answered without waiting for a handshake").isLessThan(1_000);
            assertThat(failures.await(HandshakeFailures.PLAIN_HTTP, 1)).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aClientThatDoesNotTrustTheServerFailsTheHandshakeAndItIsCounted(Transport transport) throws Exception {
        ReasonCounter failures = new ReasonCounter();
        SSLContext trustsAnotherCertificate = TlsContexts.client(TestCertificates.untrustedCertPem());
        try (HttpServer server = start(transport, failures, b -> { }); HttpClient client = client(trustsAnotherCertificate)) {
            assertThatThrownBy(() -> get(client, "https://localhost:" + server.port() + "/hello")).isInstanceOf(SSLHandshakeException.class);
            // The client hangs up, with or without an alert, often while the server still writes its
            // flight (or with the flight unread, so the alert is lost to a reset): the server counts a
            // failure but cannot always tell it was the certificate. Mutual TLS tests the server's own check.
            assertThat(failures.await(null, 1)).as("%s", failures).isPositive();
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aCertificateForAnotherHostIsRefusedByTheClient(Transport transport) throws Exception {
        try (HttpServer server = start(transport, ServerObserver.NONE, b -> b.tlsCertificate(TestCertificates.wrongHostCertPem())
                .tlsPrivateKey(TestCertificates.wrongHostKeyPem()));
             HttpClient client = client(TestCertificates.clientContextTrustingCa())) {
            assertThatThrownBy(() -> get(client, "https://localhost:" + server.port() + "/hello"))
                    .isInstanceOf(SSLHandshakeException.class).hasMessageContaining("localhost");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aTls11ClientHelloIsAnsweredWithAProtocolVersionAlert(Transport transport) throws Exception {
        // The JDK client cannot offer TLS 1.1 (jdk.tls.disabledAlgorithms), so this is a TLS 1.1
        // ClientHello by hand (RFC 4346 §7.4.1.2): no extensions, two CBC suites of that era.
        byte[] hello = HexFormat.of().parseHex("16030100" + "2f" + "010000" + "2b" + "0302"
                + "00".repeat(32) + "00" + "0004" + "c009002f" + "0100");
        ReasonCounter failures = new ReasonCounter();
        try (HttpServer server = start(transport, failures, b -> { }); Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(hello);
            byte[] answer = socket.getInputStream().readNBytes(7);
            assertThat(HexFormat.of().formatHex(answer)).as("a fatal protocol_version alert")
                    .startsWith("15").endsWith("0002" + "02" + "46");
            assertThat(socket.getInputStream().read()).as("then the connection closes").isEqualTo(-1);
            assertThat(failures.await(HandshakeFailures.PROTOCOL_VERSION, 1)).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aHandshakeThatStallsIsClosedAtTheHandshakeTimeoutAndCounted(Transport transport) throws Exception {
        ReasonCounter failures = new ReasonCounter();
        try (HttpServer server = start(transport, failures, b -> b.tlsHandshakeTimeout(Duration.ofMillis(300)));
             Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(0x16); // the start of a record, then nothing
            long start = System.nanoTime();
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(200L, 3_000L);
            assertThat(failures.await(HandshakeFailures.TIMEOUT, 1)).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void mutualTlsNeedRefusesAClientWithoutACertificateAndShowsTheHandlerTheOther(Transport transport) throws Exception {
        ReasonCounter failures = new ReasonCounter();
        try (HttpServer server = start(transport, failures, b -> b.tlsClientAuth(ClientAuth.NEED).tlsClientTrust(TestCertificates.caPem()));
             HttpClient anonymous = client(TestCertificates.clientContextTrustingCa());
             HttpClient withCertificate = client(TestCertificates.clientContextWithClientCert())) {
            String uri = "https://localhost:" + server.port() + "/whoami";
            // TLS 1.3: the client may only learn of the refusal when it reads, so any IOException.
            assertThatThrownBy(() -> get(anonymous, uri)).isInstanceOf(IOException.class);
            assertThat(failures.await(HandshakeFailures.CERTIFICATE, 1)).as("%s (the client may retry once)", failures).isPositive();
            HttpResponse<String> response = get(withCertificate, uri);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("CN=Keel Test Client");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void mutualTlsWantLetsAClientWithoutACertificateIn(Transport transport) throws Exception {
        try (HttpServer server = start(transport, ServerObserver.NONE, b -> b.tlsClientAuth(ClientAuth.WANT).tlsClientTrust(TestCertificates.caPem()));
             HttpClient anonymous = client(TestCertificates.clientContextTrustingCa());
             HttpClient withCertificate = client(TestCertificates.clientContextWithClientCert())) {
            String uri = "https://localhost:" + server.port() + "/whoami";
            assertThat(get(anonymous, uri).body()).isEqualTo("anonymous");
            assertThat(get(withCertificate, uri).body()).isEqualTo("CN=Keel Test Client");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aResponseWithConnectionCloseEndsWithCloseNotify(Transport transport) throws Exception {
        // The JDK's SSLSocket reads a bare FIN as the end too, so openssl tells: -msg shows each alert received.
        try (HttpServer server = start(transport, ServerObserver.NONE, b -> { })) {
            Process openssl;
            try {
                openssl = new ProcessBuilder("openssl", "s_client", "-connect", "127.0.0.1:" + server.port(), "-servername", "localhost",
                        "-CAfile", TestCertificates.caPem().toString(), "-verify_return_error", "-msg", "-ign_eof")
                        .redirectErrorStream(true).start();
            } catch (IOException notInstalled) {
                assumeTrue(false, "openssl is not installed");
                return;
            }
            openssl.getOutputStream().write("GET /hello HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            openssl.getOutputStream().flush();
            String output = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(openssl.waitFor(15, TimeUnit.SECONDS)).isTrue();
            assertThat(output).contains("HTTP/1.1 200").contains("Hello over TLS");
            assertThat(output.substring(output.indexOf("Hello over TLS"))).as(output).containsPattern("<<< .*Alert.*close_notify");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aConnectionPastTheLimitIsClosedBeforeAnyHandshake(Transport transport) throws Exception {
        try (HttpServer server = start(transport, ServerObserver.NONE, b -> b.maxConnections(1));
             RawClient admitted = RawClient.tls(server.port())) {
            assertThat(admitted.send(RawClient.get("/hello")).read().body()).isEqualTo("Hello over TLS");
            // Not the 503 of clear text: a handshake is the work an overloaded server refuses.
            for (int i = 0; i < 20; i++) { // a close with the ClientHello unread would be a reset, now and then
                assertThatThrownBy(() -> RawClient.tls(server.port())).hasCauseInstanceOf(SSLHandshakeException.class);
            }
            assertThat(admitted.send(RawClient.get("/hello")).read().body()).as("the admitted connection is unaffected").isEqualTo("Hello over TLS");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aStopClosesIdleTlsConnectionsAtOnce(Transport transport) throws Exception {
        HttpServer server = start(transport, ServerObserver.NONE, b -> { });
        try (HttpClient client = client(TestCertificates.clientContextTrustingCa());
             Socket silent = new Socket("127.0.0.1", server.port())) {
            assertThat(get(client, "https://localhost:" + server.port() + "/hello").statusCode()).isEqualTo(200); // then idle, kept alive
            long start = System.nanoTime();
            server.stop(Duration.ofSeconds(10));
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                    .as("idle connections, with or without a handshake, do not hold the stop").isLessThan(4_000);
            assertThat(server.openConnections()).isZero();
        } finally {
            server.stop();
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aStartWithAnUnreadableCertificateFailsNamingTheFile(Transport transport) {
        Path missing = Path.of("no-such-dir", "server.pem");
        assertThatThrownBy(() -> start(transport, ServerObserver.NONE, b -> b.tlsCertificate(missing)))
                .isInstanceOf(IOException.class).hasMessageContaining(missing.toString()).hasMessageContaining("server.tls");
        assertThatThrownBy(() -> start(transport, ServerObserver.NONE, b -> b.tlsPrivateKey(TestCertificates.caPem())))
                .isInstanceOf(IOException.class).hasMessageContaining(TestCertificates.caPem().toString());
    }
}
