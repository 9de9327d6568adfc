package keel.http.client;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * Every knob of an {@link HttpClient}, immutable, with all defaults in {@link Builder}.
 *
 * @param loops               event loops of a client that owns its loops (a client given loops uses those)
 * @param connectTimeout      TCP connect, per connection attempt
 * @param responseTimeout     from the request's last byte written to the response's first byte; zero: none
 * @param requestTimeout      the whole call, retries and their waits included, to the response's last byte
 * @param maxResponseHeadSize status line plus header fields of a response, in bytes
 * @param maxResponseBodySize a response body read whole ({@link HttpClient#sendAsync}); larger fails the call
 * @param maxRedirects        redirects followed for GET and HEAD; 0 (the default) follows none
 * @param retry               the retry policy of requests that do not set one
 * @param pool                the connection pool of each host
 * @param tls                 how {@code https} connections are secured
 * @param observer            what hears the pools and calls, for metrics ({@link ClientObserver#NONE}: nothing)
 */
public record ClientOptions(int loops, Duration connectTimeout, Duration responseTimeout, Duration requestTimeout,
                            int maxResponseHeadSize, long maxResponseBodySize, int maxRedirects, RetryPolicy retry,
                            Pool pool, Tls tls, ClientObserver observer) {

    public ClientOptions {
        if (loops < 1) throw new IllegalArgumentException("loops must be >= 1: " + loops);
        positive("connect-timeout", connectTimeout);
        notNegative("response-timeout", responseTimeout);
        positive("request-timeout", requestTimeout);
        if (maxResponseHeadSize < 256 || maxResponseHeadSize > 1 << 20) {
            throw new IllegalArgumentException("max-response-head-size must be in 256..1MiB");
        }
        if (maxResponseBodySize < 0 || maxResponseBodySize > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("max-response-body-size must be in 0..2GiB");
        }
        if (maxRedirects < 0) throw new IllegalArgumentException("max-redirects must be >= 0");
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(tls, "tls");
        Objects.requireNonNull(observer, "observer");
    }

    /**
     * TLS of {@code https} calls. The trust comes from {@code context} when given, else from the
     * certificates in {@code trust} (PEM), else from the JDK's default trust store. Sessions are
     * resumed, and SNI is sent for host names.
     *
     * @param context          a ready SSL context (trust, and a client certificate for mutual TLS), or null
     * @param trust            PEM certificates to trust instead of the JDK's store, or null
     * @param verifyHostname   the server's certificate must name the host called (RFC 2818); off only for tests
     * @param handshakeTimeout how long a TLS handshake may take, after the TCP connect
     */
    public record Tls(SSLContext context, Path trust, boolean verifyHostname, Duration handshakeTimeout) {
        public Tls {
            if (context != null && trust != null) throw new IllegalArgumentException("tls: give an SSL context or a trust file, not both");
            positive("tls.handshake-timeout", handshakeTimeout);
        }
    }

    /** Which idle connection a request gets: the most recently used (LIFO, keeps few connections warm) or the oldest (FIFO, spreads use). */
    public enum Order { LIFO, FIFO }

    /**
     * The connections of one host, on one event loop. A client spreads its calls over its loops, and
     * each loop keeps its own pool per host, so connection state is never shared between threads; the
     * limits below apply to each of these pools.
     *
     * @param maxConnections     open (and opening) connections
     * @param maxPendingAcquires requests waiting for a connection; one more fails at once with {@link PoolFullException}
     * @param acquireTimeout     how long a request waits for a connection
     * @param maxIdleTime        an idle connection older than this is closed (below the usual 60 s server keep-alive)
     * @param maxLifeTime        a connection older than this is closed when it next comes back idle; zero: no limit
     * @param evictionInterval   how often idle connections are checked in the background
     * @param order              which idle connection is reused first
     */
    public record Pool(int maxConnections, int maxPendingAcquires, Duration acquireTimeout, Duration maxIdleTime,
                       Duration maxLifeTime, Duration evictionInterval, Order order) {
        public Pool {
            if (maxConnections < 1) throw new IllegalArgumentException("pool.max-connections must be >= 1");
            if (maxPendingAcquires < 0) throw new IllegalArgumentException("pool.max-pending-acquires must be >= 0");
            positive("pool.acquire-timeout", acquireTimeout);
            positive("pool.max-idle-time", maxIdleTime);
            notNegative("pool.max-life-time", maxLifeTime);
            positive("pool.eviction-interval", evictionInterval);
            Objects.requireNonNull(order, "order");
        }
    }

    public static ClientOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.loops = loops;
        builder.connectTimeout = connectTimeout;
        builder.responseTimeout = responseTimeout;
        builder.requestTimeout = requestTimeout;
        builder.maxResponseHeadSize = maxResponseHeadSize;
        builder.maxResponseBodySize = maxResponseBodySize;
        builder.maxRedirects = maxRedirects;
        builder.retry = retry;
        builder.sslContext = tls.context();
        builder.tlsTrust = tls.trust();
        builder.verifyHostname = tls.verifyHostname();
        builder.tlsHandshakeTimeout = tls.handshakeTimeout();
        builder.observer = observer;
        return builder.pool(pool);
    }

    private static void positive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) throw new IllegalArgumentException(name + " must be > 0: " + value);
    }

    private static void notNegative(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative()) throw new IllegalArgumentException(name + " must be >= 0: " + value);
    }

    /** The defaults, one per line. */
    public static final class Builder {
        private int loops = Runtime.getRuntime().availableProcessors();
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration responseTimeout = Duration.ofSeconds(30);
        private Duration requestTimeout = Duration.ofSeconds(60);
        private int maxResponseHeadSize = 16 * 1024;
        private long maxResponseBodySize = 10L << 20;
        private int maxRedirects = 0;
        private RetryPolicy retry = RetryPolicy.none();
        private int maxConnections = 500;
        private int maxPendingAcquires = 1000;
        private Duration acquireTimeout = Duration.ofSeconds(45);
        private Duration maxIdleTime = Duration.ofSeconds(20);
        private Duration maxLifeTime = Duration.ZERO;
        private Duration evictionInterval = Duration.ofSeconds(5);
        private Order order = Order.LIFO;
        private SSLContext sslContext;
        private Path tlsTrust;
        private boolean verifyHostname = true;
        private Duration tlsHandshakeTimeout = Duration.ofSeconds(10);
        private ClientObserver observer = ClientObserver.NONE;

        private Builder() {
        }

        public Builder loops(int loops) {
            this.loops = loops;
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        public Builder responseTimeout(Duration responseTimeout) {
            this.responseTimeout = responseTimeout;
            return this;
        }

        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
            return this;
        }

        public Builder maxResponseHeadSize(int maxResponseHeadSize) {
            this.maxResponseHeadSize = maxResponseHeadSize;
            return this;
        }

        public Builder maxResponseBodySize(long maxResponseBodySize) {
            this.maxResponseBodySize = maxResponseBodySize;
            return this;
        }

        public Builder maxRedirects(int maxRedirects) {
            this.maxRedirects = maxRedirects;
            return this;
        }

        public Builder retry(RetryPolicy retry) {
            this.retry = retry;
            return this;
        }

        public Builder pool(Pool pool) {
            maxConnections = pool.maxConnections();
            maxPendingAcquires = pool.maxPendingAcquires();
            acquireTimeout = pool.acquireTimeout();
            maxIdleTime = pool.maxIdleTime();
            maxLifeTime = pool.maxLifeTime();
            evictionInterval = pool.evictionInterval();
            order = pool.order();
            return this;
        }

        public Builder maxConnections(int maxConnections) {
            this.maxConnections = maxConnections;
            return this;
        }

        public Builder maxPendingAcquires(int maxPendingAcquires) {
            this.maxPendingAcquires = maxPendingAcquires;
            return this;
        }

        public Builder acquireTimeout(Duration acquireTimeout) {
            this.acquireTimeout = acquireTimeout;
            return this;
        }

        public Builder maxIdleTime(Duration maxIdleTime) {
            this.maxIdleTime = maxIdleTime;
            return this;
        }

        public Builder maxLifeTime(Duration maxLifeTime) {
            this.maxLifeTime = maxLifeTime;
            return this;
        }

        public Builder evictionInterval(Duration evictionInterval) {
            this.evictionInterval = evictionInterval;
            return this;
        }

        public Builder order(Order order) {
            this.order = order;
            return this;
        }

        public Builder sslContext(SSLContext sslContext) {
            this.sslContext = sslContext;
            return this;
        }

        public Builder tlsTrust(Path tlsTrust) {
            this.tlsTrust = tlsTrust;
            return this;
        }

        public Builder verifyHostname(boolean verifyHostname) {
            this.verifyHostname = verifyHostname;
            return this;
        }

        public Builder tlsHandshakeTimeout(Duration tlsHandshakeTimeout) {
            this.tlsHandshakeTimeout = tlsHandshakeTimeout;
            return this;
        }

        /** What hears the client's pools and calls (a metrics binding); called on event loops, so it must not block. */
        public Builder observer(ClientObserver observer) {
            this.observer = observer;
            return this;
        }

        public ClientOptions build() {
            return new ClientOptions(loops, connectTimeout, responseTimeout, requestTimeout, maxResponseHeadSize,
                    maxResponseBodySize, maxRedirects, retry,
                    new Pool(maxConnections, maxPendingAcquires, acquireTimeout, maxIdleTime, maxLifeTime, evictionInterval, order),
                    new Tls(sslContext, tlsTrust, verifyHostname, tlsHandshakeTimeout), observer);
        }
    }
}
