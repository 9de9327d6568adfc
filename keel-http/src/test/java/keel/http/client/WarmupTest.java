package keel.http.client;

import keel.http.Response;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;
import keel.http.server.TestServer;
import keel.http.server.Transport;
import keel.http.server.Warmup;
import keel.http.server.Wire;
import keel.http.tls.TestCertificates;
import keel.core.tls.ClientAuth;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.URI;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Warm start: the warm-up really runs the request path, leaves nothing behind, and fills the client's pool. */
class WarmupTest {

    private static long threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().startsWith(prefix)).count();
    }

    /**
     * {@link #threadsNamed} once it is {@code expected}, or after 5 s: a loop's thread still runs its
     * thread-local clean-up ({@code Thread.exit}) for a moment after the client's close saw the loop end.
     */
    private static long threadsNamedOnceSettled(String prefix, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (threadsNamed(prefix) != expected && System.nanoTime() - deadline < 0) Thread.sleep(1);
        return threadsNamed(prefix);
    }

    /** On a TLS wire the warm-up's own client trusts the server's certificate and shakes hands. */
    @ParameterizedTest
    @EnumSource(Wire.class)
    void theServerWarmupAnswersEveryRequestAndStopsWhatItStarted(Wire wire) throws Exception {
        long clientLoopsBefore = threadsNamed("keel-client");
        ServerOptions options = wire.configure(ServerOptions.builder().host("127.0.0.1").port(0).loops(2)).build();
        Warmup.Report report = HttpServer.warmup(options);
        assertThat(report.failures()).isZero();
        assertThat(report.requests()).isGreaterThanOrEqualTo(500);
        assertThat(threadsNamedOnceSettled("keel-client", clientLoopsBefore)).isEqualTo(clientLoopsBefore);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void overTlsTheWarmupRunsTheHandshakeAndEveryRequestOnBothTransports(Transport transport) throws Exception {
        ServerOptions options = ServerOptions.builder().host("127.0.0.1").port(0).loops(1).transport(transport)
                .tlsCertificate(TestCertificates.serverCertPem()).tlsPrivateKey(TestCertificates.serverKeyPem())
                .tlsClientAuth(ClientAuth.NEED).tlsClientTrust(TestCertificates.caPem()).build();
        // A generous budget: this checks that every path runs over TLS, not how fast a busy machine runs it.
        try (HttpClient client = HttpClient.create(ClientOptions.builder().loops(1).sslContext(TestCertificates.clientContextTrustingCa()).build())) {
            Warmup.Report report = Warmup.run(options, client, 1000, java.time.Duration.ofSeconds(60));
            // Every request answered over TLS, the one-connection-per-request phase included (a full handshake each).
            assertThat(report.failures()).isZero();
            assertThat(report.requests()).isEqualTo(1200);
        }
    }

    @Test
    void aServerStartedWarmServesItsOwnRoutes() throws Exception {
        try (TestServer server = TestServer.start(new Router().get("/hello", request -> Response.ok("hi")),
                options -> options.warmup(true));
             HttpClient client = HttpClient.create(ClientOptions.builder().loops(1).build())) {
            Response response = client.send(ClientRequest.get(server.uri("/hello").toString()));
            assertThat(response.body()).asString().isEqualTo("hi");
            assertThat(client.send(ClientRequest.get(server.uri("/warmup/text").toString())).status())
                    .as("warm-up routes live on the throwaway server only").isEqualTo(404);
        }
    }

    @Test
    void theClientWarmupLeavesOneOpenConnectionPerLoopToEachUpstream() throws Exception {
        try (TestServer upstream = TestServer.start(new Router().post("/refine", request -> Response.ok("done")));
             HttpClient client = HttpClient.create(ClientOptions.builder().loops(2).build())) {
            Warmup.Report report = client.warmup(URI.create(upstream.uri("/refine").toString()));
            assertThat(report.failures()).isZero();
            assertThat(client.idleConnections()).isEqualTo(2);
            assertThat(upstream.server().openConnections()).isEqualTo(2);
            client.send(ClientRequest.post(upstream.uri("/refine").toString(), "{}"));
            assertThat(upstream.server().openConnections()).as("the first call reuses a warm connection").isEqualTo(2);
        }
    }
}
