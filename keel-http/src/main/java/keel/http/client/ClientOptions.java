package keel.http.client;

import keel.http.config.Knob;
import keel.http.config.Knob.As;
import keel.http.config.KnobBuilder;
import keel.http.config.KnobTable;

import static keel.http.config.ConfigValues.notNegative;
import static keel.http.config.ConfigValues.positive;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * Every knob of an {@link HttpClient}, immutable. Each knob declares its YAML key ({@code client.…}),
 * its flag ({@code --client-…}), its default and its meaning with {@link Knob}; {@link #KNOBS} reads
 * them for the {@link Builder}, YAML, flags and the reference table. The components that are objects
 * ({@code retry}, {@code observer}, the TLS {@code context}) are set in code only.
 *
 * @param retry    the retry policy of requests that do not set one (null: {@link RetryPolicy#none()})
 * @param pool     the connection pool of each host
 * @param tls      how {@code https} connections are secured
 * @param observer what hears the pools and calls, for metrics (null: {@link ClientObserver#NONE}, nothing)
 */
public record ClientOptions(
        @Knob(key = "client.loops", flag = "--client-loops", value = Knob.PROCESSORS, min = 1, max = 1024,
                doc = "the event loops of a client that owns its loops (a client given loops uses those)")
        int loops,
        @Knob(key = "client.connect-timeout", flag = "--client-connect-timeout", value = "10s", doc = "a TCP connect, per attempt")
        Duration connectTimeout,
        @Knob(key = "client.response-timeout", flag = "--client-response-timeout", value = "30s", as = As.DEADLINE,
                doc = "from a request's last byte written to its response's first byte (`none`: no limit)")
        Duration responseTimeout,
        @Knob(key = "client.request-timeout", flag = "--client-request-timeout", value = "1m",
                doc = "a whole call, retries and their waits included, to its response's last byte; a request may set its own")
        Duration requestTimeout,
        @Knob(key = "client.max-response-head-size", flag = "--client-max-response-head-size", value = "16KiB", as = As.SIZE,
                min = 256, max = 1 << 20, doc = "a response's status line plus header fields")
        int maxResponseHeadSize,
        @Knob(key = "client.max-response-body-size", flag = "--client-max-response-body-size", value = "10MiB", as = As.SIZE,
                max = Knob.MAX_SIZE, doc = "a response body read whole (`sendAsync`); a larger one fails the call")
        long maxResponseBodySize,
        @Knob(key = "client.max-redirects", flag = "--client-max-redirects", value = "0",
                doc = "the redirects followed for GET and HEAD (`0`: none)")
        int maxRedirects,
        RetryPolicy retry, Pool pool, Tls tls, ClientObserver observer) {

    /** The knobs of these options, read from the declarations. */
    public static final KnobTable<ClientOptions> KNOBS = KnobTable.of(ClientOptions.class, ClientOptions::of);

    /** These options from a knob table's values (a table that holds client options holds them too). */
    public static ClientOptions of(KnobTable.Values v) {
        return new ClientOptions(v.get("client.loops"), v.get("client.connect-timeout"), v.get("client.response-timeout"),
                v.get("client.request-timeout"), v.get("client.max-response-head-size"), v.get("client.max-response-body-size"),
                v.get("client.max-redirects"), v.get("retry"),
                new Pool(v.get("client.pool.max-connections"), v.get("client.pool.max-pending-acquires"), v.get("client.pool.acquire-timeout"),
                        v.get("client.pool.max-idle-time"), v.get("client.pool.max-life-time"), v.get("client.pool.eviction-interval"),
                        v.get("client.pool.order")),
                new Tls(v.get("context"), v.get("client.tls.trust"), v.get("client.tls.verify-hostname"), v.get("client.tls.handshake-timeout")),
                v.get("observer"));
    }

    public ClientOptions {
        positive("client.loops", loops);
        positive("client.connect-timeout", connectTimeout);
        notNegative("client.response-timeout", responseTimeout);
        positive("client.request-timeout", requestTimeout);
        if (maxResponseHeadSize < 256 || maxResponseHeadSize > 1 << 20) {
            throw new IllegalArgumentException("client.max-response-head-size must be in 256..1MiB");
        }
        if (maxResponseBodySize < 0 || maxResponseBodySize > Knob.MAX_SIZE) {
            throw new IllegalArgumentException("client.max-response-body-size must be in 0..2GiB");
        }
        if (maxRedirects < 0) throw new IllegalArgumentException("client.max-redirects must be >= 0");
        retry = Objects.requireNonNullElse(retry, RetryPolicy.none());
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(tls, "tls");
        observer = Objects.requireNonNullElse(observer, ClientObserver.NONE);
    }

    /**
     * TLS of {@code https} calls. The trust comes from {@code context} when given (set in code), else
     * from the certificates in {@code trust} (PEM), else from the JDK's default trust store. Sessions
     * are resumed, and SNI is sent for host names.
     *
     * @param context a ready SSL context (trust, and a client certificate for mutual TLS), or null
     */
    public record Tls(
            SSLContext context,
            @Knob(key = "client.tls.trust", flag = "--client-tls-trust", value = "",
                    doc = "PEM certificates to trust instead of the JDK's trust store (empty: the JDK's)")
            Path trust,
            @Knob(key = "client.tls.verify-hostname", flag = "--client-tls-verify-hostname", value = "true",
                    doc = "the server's certificate must name the host called (RFC 2818); `false` only for tests")
            boolean verifyHostname,
            @Knob(key = "client.tls.handshake-timeout", flag = "--client-tls-handshake-timeout", value = "10s",
                    doc = "how long a TLS handshake may take, after the TCP connect")
            Duration handshakeTimeout) {
        public Tls {
            if (context != null && trust != null) throw new IllegalArgumentException("client.tls: give an SSL context or a trust file, not both");
            positive("client.tls.handshake-timeout", handshakeTimeout);
        }
    }

    /** Which idle connection a request gets: the most recently used (LIFO, keeps few connections warm) or the oldest (FIFO, spreads use). */
    public enum Order { LIFO, FIFO }

    /**
     * The connections of one host, on one event loop. A client spreads its calls over its loops, and
     * each loop keeps its own pool per host, so connection state is never shared between threads; the
     * limits below apply to each of these pools.
     */
    public record Pool(
            @Knob(key = "client.pool.max-connections", flag = "--client-max-connections", value = "500", min = 1,
                    doc = "the open (and opening) connections of each host's pool, per client loop")
            int maxConnections,
            @Knob(key = "client.pool.max-pending-acquires", flag = "--client-max-pending-acquires", value = "1000",
                    doc = "the requests waiting for a connection; one more fails at once with `PoolFullException`")
            int maxPendingAcquires,
            @Knob(key = "client.pool.acquire-timeout", flag = "--client-acquire-timeout", value = "45s",
                    doc = "how long a request waits for a connection")
            Duration acquireTimeout,
            @Knob(key = "client.pool.max-idle-time", flag = "--client-max-idle-time", value = "20s",
                    doc = "an idle connection older than this is closed (below the usual 60 s server keep-alive)")
            Duration maxIdleTime,
            @Knob(key = "client.pool.max-life-time", flag = "--client-max-life-time", value = "none", as = As.DEADLINE,
                    doc = "a connection older than this is closed when it next comes back idle (`none`: no limit)")
            Duration maxLifeTime,
            @Knob(key = "client.pool.eviction-interval", flag = "--client-eviction-interval", value = "5s",
                    doc = "how often idle connections are checked in the background")
            Duration evictionInterval,
            @Knob(key = "client.pool.order", flag = "--client-pool-order", value = "lifo",
                    doc = "which idle connection is reused first: `lifo` (the most recent: keeps few connections warm) or `fifo` (the oldest: spreads use)")
            Order order) {
        public Pool {
            positive("client.pool.max-connections", maxConnections);
            if (maxPendingAcquires < 0) throw new IllegalArgumentException("client.pool.max-pending-acquires must be >= 0");
            positive("client.pool.acquire-timeout", acquireTimeout);
            positive("client.pool.max-idle-time", maxIdleTime);
            notNegative("client.pool.max-life-time", maxLifeTime);
            positive("client.pool.eviction-interval", evictionInterval);
            Objects.requireNonNull(order, "client.pool.order");
        }
    }

    public static ClientOptions defaults() {
        return KNOBS.defaultOptions();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        return new Builder().from(this);
    }

    /** Flat setters, each naming the YAML key of its knob (or the component set in code); the defaults are the declarations'. */
    public static final class Builder extends KnobBuilder<ClientOptions, Builder> {
        private Builder() {
            super(KNOBS);
        }

        public Builder loops(int loops) { return set("client.loops", loops); }
        public Builder connectTimeout(Duration connectTimeout) { return set("client.connect-timeout", connectTimeout); }
        public Builder responseTimeout(Duration responseTimeout) { return set("client.response-timeout", responseTimeout); }
        public Builder requestTimeout(Duration requestTimeout) { return set("client.request-timeout", requestTimeout); }
        public Builder maxResponseHeadSize(int maxResponseHeadSize) { return set("client.max-response-head-size", maxResponseHeadSize); }
        public Builder maxResponseBodySize(long maxResponseBodySize) { return set("client.max-response-body-size", maxResponseBodySize); }
        public Builder maxRedirects(int maxRedirects) { return set("client.max-redirects", maxRedirects); }
        public Builder retry(RetryPolicy retry) { return set("retry", retry); }
        public Builder maxConnections(int maxConnections) { return set("client.pool.max-connections", maxConnections); }
        public Builder maxPendingAcquires(int maxPendingAcquires) { return set("client.pool.max-pending-acquires", maxPendingAcquires); }
        public Builder acquireTimeout(Duration acquireTimeout) { return set("client.pool.acquire-timeout", acquireTimeout); }
        public Builder maxIdleTime(Duration maxIdleTime) { return set("client.pool.max-idle-time", maxIdleTime); }
        public Builder maxLifeTime(Duration maxLifeTime) { return set("client.pool.max-life-time", maxLifeTime); }
        public Builder evictionInterval(Duration evictionInterval) { return set("client.pool.eviction-interval", evictionInterval); }
        public Builder order(Order order) { return set("client.pool.order", order); }
        public Builder sslContext(SSLContext sslContext) { return set("context", sslContext); }
        public Builder tlsTrust(Path tlsTrust) { return set("client.tls.trust", tlsTrust); }
        public Builder verifyHostname(boolean verifyHostname) { return set("client.tls.verify-hostname", verifyHostname); }
        public Builder tlsHandshakeTimeout(Duration tlsHandshakeTimeout) { return set("client.tls.handshake-timeout", tlsHandshakeTimeout); }

        /** What hears the client's pools and calls (a metrics binding); called on event loops, so it must not block. */
        public Builder observer(ClientObserver observer) { return set("observer", observer); }
    }
}
