package keel.http.warmup;

import keel.http.Response;
import keel.http.client.ClientOptions;
import keel.http.client.ClientRequest;
import keel.http.client.HttpClient;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerObserver;
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
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** Warm start: the warm-up really runs the request path, leaves nothing behind, and fills the client's pool. */
class WarmupTest {

    private static Set<Thread> threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().startsWith(prefix))
                .collect(Collectors.toSet());
    }

    /**
     * The threads named {@code prefix} that were not among {@code before}, once there are none, or after
     * 5 s: a loop's thread still runs its thread-local clean-up ({@code Thread.exit}) for a moment after
     * the client's close saw the loop end. (A thread of an earlier test may end meanwhile: only new
     * threads count.)
     */
    private static Set<Thread> newThreadsOnceSettled(String prefix, Set<Thread> before) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        Set<Thread> added;
        do {
            added = new HashSet<>(threadsNamed(prefix));
            added.removeAll(before);
            if (added.isEmpty()) return added;
            Thread.sleep(1);
        } while (System.nanoTime() - deadline < 0);
        return added;
    }

    /** On a TLS wire the warm-up's own client trusts the server's certificate and shakes hands. */
    @ParameterizedTest
    @EnumSource(Wire.class)
    void theServerWarmupAnswersEveryRequestAndStopsWhatItStarted(Wire wire) throws Exception {
        Set<Thread> clientLoopsBefore = threadsNamed("keel-client");
        ServerOptions options = wire.configure(ServerOptions.builder().host("127.0.0.1").port(0).loops(2)).build();
        Warmup.Report report = new RequestPathWarmup().warmUp(options, ServerObserver.NONE);
        assertThat(report.failures()).isZero();
        assertThat(report.requests()).as("the default size, then a quarter as many one per connection")
                .isEqualTo(Warmup.DEFAULT_REQUESTS + Warmup.DEFAULT_REQUESTS / 4);
        assertThat(newThreadsOnceSettled("keel-client", clientLoopsBefore)).as("client loops the warm-up left running").isEmpty();
    }

    @Test
    void theThrowawayServerStopsWithoutTheHealthGrace() throws Exception {
        java.time.Duration grace = java.time.Duration.ofSeconds(20);
        ServerOptions options = ServerOptions.builder().host("127.0.0.1").port(0).loops(1).healthGrace(grace).build();
        long start = System.nanoTime();
        Warmup.Report report = new RequestPathWarmup().warmUp(options, ServerObserver.NONE);
        assertThat(report.failures()).isZero();
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).as("the warm-up, settling included").isLessThan(grace);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void overTlsTheWarmupRunsTheHandshakeAndEveryRequestOnBothTransports(Transport transport) throws Exception {
        ServerOptions options = ServerOptions.builder().host("127.0.0.1").port(0).loops(1).transport(transport)
                .tlsCertificate(TestCertificates.serverCertPem()).tlsPrivateKey(TestCertificates.serverKeyPem())
                .tlsClientAuth(ClientAuth.NEED).tlsClientTrust(TestCertificates.caPem()).build();
        // A generous budget: this checks that every path runs over TLS, not how fast a busy machine runs it.
        try (HttpClient client = HttpClient.create(ClientOptions.builder().loops(1).sslContext(TestCertificates.clientContextTrustingCa()).build())) {
            Warmup.Report report = RequestPathWarmup.run(options, client, 1000, java.time.Duration.ofSeconds(60));
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
    void aServerAskedToWarmUpButHandedNoWarmupRunsKeelsOwn() throws Exception {
        ServerOptions options = ServerOptions.builder().host("127.0.0.1").port(0).loops(1).warmup(true)
                .warmupRequests(Warmup.JIT_REQUESTS).build();
        java.util.List<Integer> warmups = new java.util.concurrent.CopyOnWriteArrayList<>();
        ServerObserver observer = new ServerObserver() {
            @Override
            public void warmup(int requests) {
                warmups.add(requests);
            }
        };
        try (HttpServer server = HttpServer.start(options, new Router(), observer)) {
            assertThat(warmups).as("the provided warm-up warmed the observer before the port opened").containsExactly(Warmup.JIT_REQUESTS);
            assertThat(server.port()).isPositive();
        }
    }

    @Test
    void theClientWarmupLeavesOneOpenConnectionPerLoopToEachUpstream() throws Exception {
        try (TestServer upstream = TestServer.start(new Router().post("/refine", request -> Response.ok("done")));
             HttpClient client = HttpClient.create(ClientOptions.builder().loops(2).build())) {
            Warmup.Report report = RequestPathWarmup.client(client, URI.create(upstream.uri("/refine").toString()));
            assertThat(report.failures()).isZero();
            assertThat(client.idleConnections()).isEqualTo(2);
            assertThat(upstream.server().openConnections()).isEqualTo(2);
            client.send(ClientRequest.post(upstream.uri("/refine").toString(), "{}"));
            assertThat(upstream.server().openConnections()).as("the first call reuses a warm connection").isEqualTo(2);
        }
    }
}
