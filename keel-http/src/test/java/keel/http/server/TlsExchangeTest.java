package keel.http.server;

import keel.core.tls.HandshakeFailures;
import keel.http.Response;
import keel.http.router.Router;
import keel.http.tls.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * HTTP/1.1 exchanges over TLS with real clients on both transports: large bodies, pipelining,
 * {@code Expect: 100-continue}, renegotiation, and a TLS client that reached a plain port.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsExchangeTest {
    private static final int TEN_MIB = 10 * 1024 * 1024;

    private static Router routes() {
        return ServerTlsTest.routes();
    }

    private static HttpServer start(Transport transport, ServerObserver observer, Consumer<ServerOptions.Builder> customize) throws IOException {
        return ServerTlsTest.start(transport, observer, customize);
    }

    private static HttpServer startTls(Transport transport) throws IOException {
        return start(transport, ServerObserver.NONE, b -> { });
    }

    private static String post(String target, String body) {
        return "POST " + target + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void echoesTenMebibytesEachWayThroughTheJdkClientWithoutBlockingTheLoop(Transport transport) throws Exception {
        byte[] payload = new byte[TEN_MIB]; // the default body limit, exactly
        new Random(11).nextBytes(payload);
        try (HttpClient client = HttpClient.newBuilder().sslContext(TestCertificates.clientContextTrustingCa())
                .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build()) {
            if (transport == Transport.NIO) {
                // Cold, AES-GCM runs interpreted: one 16 KiB record took up to 270 ms to open on a busy
                // two-core machine, whatever the channel does. The server's warm-up (off by default, and in
                // clear text) does not compile it, so a throwaway server does, before the guarded one starts.
                try (HttpServer throwaway = startTls(transport)) {
                    assertThat(echo(client, throwaway, payload).body()).isEqualTo(payload);
                }
            }
            try (HttpServer server = startTls(transport)) {
                HttpResponse<byte[]> echo = echo(client, server, payload);
                assertThat(echo.statusCode()).isEqualTo(200);
                assertThat(echo.body().length).isEqualTo(TEN_MIB);
                assertThat(Arrays.equals(echo.body(), payload)).as("the echoed bytes").isTrue();
                if (transport == Transport.NIO) {
                    assertThat(server.options().guard().enabled()).as("the guard, on by default").isTrue();
                    assertThat(server.blockedLoopEvents()).as("sealing and opening 20 MiB of records never held a loop past the threshold")
                            .isZero();
                }
            }
        }
    }

    private static HttpResponse<byte[]> echo(HttpClient client, HttpServer server, byte[] payload) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + server.port() + "/echo"))
                .timeout(Duration.ofSeconds(40)).POST(HttpRequest.BodyPublishers.ofByteArray(payload)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answersThreePipelinedRequestsInOrder(Transport transport) throws Exception {
        try (HttpServer server = startTls(transport); RawClient client = RawClient.tls(server.port(), TestCertificates.clientContextTrustingCa())) {
            client.send(post("/echo", "one") + "GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n" + post("/echo", "three"));
            assertThat(client.read().body()).isEqualTo("one");
            assertThat(client.read().body()).isEqualTo("Hello over TLS");
            RawClient.RawResponse third = client.read();
            assertThat(third.status()).isEqualTo(200);
            assertThat(third.body()).isEqualTo("three");
            assertThat(client.timeout(300).closedByServer()).as("kept alive").isFalse();
        }
    }

    /**
     * A large head left half read after an exchange, then the rest in full-size records: each record
     * must still open beside the unread part (the plain-text buffer holds both), or the head would
     * wait for its timeout.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void opensFullRecordsBesideALargeHalfReadHead(Transport transport) throws Exception {
        try (HttpServer server = start(transport, ServerObserver.NONE, b -> b.maxHeadSize(32 * 1024));
             RawClient client = RawClient.tls(server.port(), TestCertificates.clientContextTrustingCa())) {
            String large = "GET /hello HTTP/1.1\r\nHost: localhost\r\nX-Large: " + "x".repeat(28 * 1024) + "\r\n\r\n";
            client.send(post("/echo", "first") + large.substring(0, 6 * 1024));
            assertThat(client.read().body()).isEqualTo("first");
            client.send(large.substring(6 * 1024)); // 22 KiB more: records of 16 KiB
            RawClient.RawResponse second = client.read();
            assertThat(second.status()).isEqualTo(200);
            assertThat(second.body()).isEqualTo("Hello over TLS");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void sends100ContinueThenTheFinalResponse(Transport transport) throws Exception {
        try (HttpServer server = startTls(transport); RawClient client = RawClient.tls(server.port(), TestCertificates.clientContextTrustingCa())) {
            client.send("POST /echo HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nContent-Length: 11\r\n\r\n");
            assertThat(client.read().statusLine()).isEqualTo("HTTP/1.1 100 Continue");
            client.send("hello world");
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("hello world");
        }
    }

    /**
     * {@code R} makes {@code openssl s_client} start a renegotiation (a ClientHello on the open
     * connection). The nio transport refuses it at its ClientHello; the blocking one closes the
     * connection as soon as the JDK's {@link SSLSocket} reports the second handshake.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void aTls12RenegotiationIsRefusedClosedAndCounted(Transport transport) throws Exception {
        ReasonCounter failures = new ReasonCounter();
        try (HttpServer server = start(transport, failures, b -> { })) {
            Process openssl;
            try {
                openssl = new ProcessBuilder("openssl", "s_client", "-tls1_2", "-connect", "127.0.0.1:" + server.port(), "-servername", "localhost")
                        .redirectErrorStream(true).start();
            } catch (IOException notInstalled) {
                assumeTrue(false, "openssl is not installed");
                return;
            }
            try {
                // Once the session is up (the renegotiation comes after the handshake), R; stdin stays open.
                String output = awaitOutput(openssl, "Verify return code");
                openssl.getOutputStream().write("R\n".getBytes(StandardCharsets.US_ASCII));
                openssl.getOutputStream().flush();
                assertThat(openssl.waitFor(10, TimeUnit.SECONDS)).as("openssl ends when the server closes").isTrue();
                output += new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(output).contains("Protocol  : TLSv1.2").contains("RENEGOTIATING");
                assertThat(failures.await(HandshakeFailures.RENEGOTIATION, 1)).as("%s", failures).isEqualTo(1);
                awaitNoConnections(server);
            } finally {
                openssl.destroyForcibly();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aTlsClientHelloToAPlainPortGetsA400AndACloseAtOnce(Transport transport) throws Exception {
        try (HttpServer server = HttpServer.start(ServerOptions.builder().host("127.0.0.1").port(0).transport(transport).loops(2)
                .lingerDrain(Duration.ofSeconds(2)).build(), routes())) {
            SSLContext context = TestCertificates.clientContextTrustingCa(); // made before the clock starts
            // The JDK client's own handshake attempt fails fast, not at the server's 10 s head-read timeout.
            long start = System.nanoTime();
            try (SSLSocket socket = (SSLSocket) context.getSocketFactory()
                    .createSocket(new Socket("127.0.0.1", server.port()), "localhost", server.port(), true)) {
                socket.setSoTimeout(10_000);
                assertThatThrownBy(socket::startHandshake).isInstanceOf(IOException.class);
            }
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("the handshake attempt failed fast").isLessThan(1_000);
            // The same ClientHello from a raw socket shows the answer: a 400, then the close.
            byte[] hello = clientHello(context);
            try (RawClient client = RawClient.connect(server.port())) {
                start = System.nanoTime();
                RawClient.RawResponse response = client.send(hello).read();
                assertThat(response.status()).isEqualTo(400);
                assertThat(response.header("connection")).isEqualTo("close");
                assertThat(client.closedByServer()).isTrue();
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("answered and closed at once").isLessThan(1_000);
            }
        }
    }

    /** The first flight of a JDK client engine: one handshake record holding a real ClientHello. */
    private static byte[] clientHello(SSLContext context) throws IOException {
        SSLEngine engine = context.createSSLEngine("localhost", 443);
        engine.setUseClientMode(true);
        ByteBuffer record = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.wrap(ByteBuffer.allocate(0), record);
        record.flip();
        byte[] bytes = new byte[record.remaining()];
        record.get(bytes);
        assertThat(bytes[0]).as("a handshake record").isEqualTo((byte) 0x16);
        return bytes;
    }

    /** Reads {@code process}'s output until it contains {@code marker} (or it ends), on this thread. */
    private static String awaitOutput(Process process, String marker) {
        StringBuilder output = new StringBuilder();
        try {
            var in = process.getInputStream();
            int b;
            while (output.indexOf(marker, Math.max(0, output.length() - marker.length())) < 0 && (b = in.read()) >= 0) {
                output.append((char) b);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(output.toString()).as("openssl's handshake").contains(marker);
        return output.toString();
    }

    private static void awaitNoConnections(HttpServer server) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (server.openConnections() > 0 && System.nanoTime() - deadline < 0) Thread.sleep(5);
        assertThat(server.openConnections()).as("the connection is closed").isZero();
    }
}
