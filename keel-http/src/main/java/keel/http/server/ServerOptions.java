package keel.http.server;

import keel.core.log.LogFormat;
import keel.core.loop.EventLoop;
import keel.core.tls.ClientAuth;
import keel.http.router.RouteSettings;
import keel.http.ws.WsOptions;

import static keel.http.server.ConfigValues.positive;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Every knob of an {@link HttpServer}, immutable, with all defaults in {@link Builder}. The YAML keys
 * and CLI flags of each component are listed in {@link ConfigKeys}.
 *
 * @param host      address to bind
 * @param port      port to bind; 0 picks a free one
 * @param transport {@code nio} or {@code blocking}
 * @param execution default execution of routes that do not set one (nio transport)
 * @param threads   thread kind of the blocking transport
 * @param webSocket the limits and timeouts of WebSocket sessions (nio transport; see {@link WsOptions})
 * @param tls       https: the key material and handshake settings; {@link Tls#enabled() disabled} by default
 * @param compression gzip of response bodies the client accepts ({@link Compression})
 * @param warmup    run the hot paths (JIT), loops, buffer pools and the resolver before the port opens
 *                  ({@link HttpServer#warmup})
 * @param warmupRequests how many requests the warm-up sends over keep-alive connections (at most; its
 *                  time budget may end it sooner); 200 more come one per connection
 * @param logging   the format of log lines and the access log
 * @param routes    settings of declared routes (execution, limit, deadline, body limit), applied in
 *                  order over the code's when the server starts ({@link RouteSettings})
 */
public record ServerOptions(String host, int port, Transport transport, Execution execution, Threads threads,
                            Limits limits, Timeouts timeouts, Pools pools, WaterMarks waterMarks, Guard guard,
                            WsOptions webSocket, Tls tls, Compression compression, boolean warmup, int warmupRequests,
                            Logging logging, List<RouteSettings> routes) {

    public ServerOptions {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(execution, "execution");
        Objects.requireNonNull(threads, "threads");
        Objects.requireNonNull(guard, "guard");
        Objects.requireNonNull(webSocket, "webSocket");
        Objects.requireNonNull(tls, "tls");
        Objects.requireNonNull(compression, "compression");
        Objects.requireNonNull(logging, "logging");
        routes = List.copyOf(routes);
        if (port < 0 || port > 65_535) throw new IllegalArgumentException("port must be in 0..65535: " + port);
        if (warmupRequests < 1) throw new IllegalArgumentException("warmupRequests must be at least 1: " + warmupRequests);
    }

    /**
     * @param backlog        pending connections the OS queues before accept
     * @param maxConnections open connections; past it a new connection gets 503 and a lingering close
     * @param maxHeadSize    request line plus header fields in bytes (431; 414 for the request line)
     * @param maxHeaderCount header fields per request (431)
     * @param maxBodySize    request body in bytes (413)
     */
    public record Limits(int backlog, int maxConnections, int maxHeadSize, int maxHeaderCount, long maxBodySize) {
        public Limits {
            positive("backlog", backlog);
            positive("max-connections", maxConnections);
            if (maxHeadSize < 256 || maxHeadSize > 1 << 20) throw new IllegalArgumentException("max-head-size must be in 256..1MiB");
            positive("max-header-count", maxHeaderCount);
            if (maxBodySize < 0 || maxBodySize > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("max-body-size must be in 0..2GiB");
            }
        }
    }

    /**
     * @param headRead       from a request's first byte to the end of its head (408): a total, so a head
     *                       trickled in byte by byte is bounded too
     * @param idle           a keep-alive connection with no request in progress, or a body that stalls (408)
     * @param writeStall     queued response bytes that make no progress this long (a client that stopped
     *                       reading): the connection closes
     * @param bodyMinRate    the least a request body may average, in bytes per second, or the client gets
     *                       a 408; 0 turns it off
     * @param bodyRateWindow the credit a body starts with, and the most it may save by sending faster: a
     *                       body that falls this far behind {@code bodyMinRate} is too slow
     * @param lingerDrain    how long a closing connection drains unread input before it closes
     * @param healthGrace    how long {@link HttpServer#stop} keeps serving as before, with
     *                       {@link HttpServer#isStopping()} true (a health route answers 503), before it
     *                       stops accepting: a load balancer's time to take the server out; 0: none
     * @param grace          how long {@link HttpServer#stop} lets in-flight requests finish
     * @param handlerDeadline how long a handler may take to produce its response before the client
     *                       gets 503 (routes may set their own); {@link Duration#ZERO}: none
     */
    public record Timeouts(Duration headRead, Duration idle, Duration writeStall, int bodyMinRate, Duration bodyRateWindow,
                           Duration lingerDrain, Duration healthGrace, Duration grace, Duration handlerDeadline) {
        public Timeouts {
            positive("head-read", headRead);
            positive("idle", idle);
            positive("write-stall", writeStall);
            if (bodyMinRate < 0 || bodyMinRate > 1 << 30) throw new IllegalArgumentException("timeouts.body-min-rate must be in 0..1073741824 bytes/s");
            positive("body-rate-window", bodyRateWindow);
            positive("linger-drain", lingerDrain);
            Objects.requireNonNull(healthGrace, "health-grace");
            if (healthGrace.isNegative()) throw new IllegalArgumentException("health-grace must be >= 0: " + healthGrace);
            Objects.requireNonNull(grace, "grace");
            Objects.requireNonNull(handlerDeadline, "handler-deadline");
            if (handlerDeadline.isNegative()) throw new IllegalArgumentException("handler-deadline must be >= 0: " + handlerDeadline);
        }
    }

    /**
     * @param loops             event loops of the nio transport
     * @param loopTurnBudget    how long a loop turn may spend on ready connections, and again on queued
     *                          tasks, before it fires due timers and selects again
     * @param workerThreads     platform threads of the worker pool
     * @param workerQueue       requests waiting for a worker (503 past it)
     * @param virtualThreadLimit requests running on virtual threads at once (503 past it)
     * @param blockingThreads   platform threads of the blocking transport (one per connection)
     * @param blockingQueue     accepted connections waiting for a blocking thread (503 past it)
     * @param loopTaskQueue     tasks each event loop may hold: answers on their way back from other
     *                          threads (each request in flight reserves its place; 503 past it) and new connections
     */
    public record Pools(int loops, Duration loopTurnBudget, int workerThreads, int workerQueue, int virtualThreadLimit,
                        int blockingThreads, int blockingQueue, int loopTaskQueue) {
        public Pools {
            positive("loops", loops);
            positive("server.loop-task-queue", loopTaskQueue);
            if (loopTurnBudget.compareTo(Duration.ofNanos(1_000)) < 0 || loopTurnBudget.compareTo(Duration.ofSeconds(1)) > 0) {
                throw new IllegalArgumentException("server.loop-turn-budget must be in 1µs..1s");
            }
            positive("worker-pool.threads", workerThreads);
            positive("worker-pool.queue", workerQueue);
            positive("virtual-threads.max-concurrent", virtualThreadLimit);
            positive("blocking.platform-threads", blockingThreads);
            positive("blocking.queue", blockingQueue);
        }
    }

    /**
     * A connection stops reading (and a streamed body stops pulling) once {@code high} bytes wait to
     * be written, and resumes below {@code low}.
     */
    public record WaterMarks(int high, int low) {
        public WaterMarks {
            positive("write.high-water-mark", high);
            if (low < 0 || low >= high) throw new IllegalArgumentException("write.low-water-mark must be in 0..high-water-mark");
        }
    }

    /** What the guard does when it catches a route blocking an event loop. */
    public enum OnBlocked {
        /** Log a warning with the stack and count it. */
        WARN,
        /** Also run that route on virtual threads from then on. */
        OFFLOAD;

        public String word() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * The guard of the nio transport's event loops.
     *
     * @param enabled          false turns off the lag probe and the watchdog
     * @param lagProbeInterval how often each loop measures how late a timer fires
     * @param blockedThreshold how long a loop may stay in one round (one handler or task, or one select's ready connections) before the watchdog reports it
     * @param onBlocked        {@code warn}, or {@code offload} the route caught blocking
     */
    public record Guard(boolean enabled, Duration lagProbeInterval, Duration blockedThreshold, OnBlocked onBlocked) {
        public Guard {
            positive("guard.lag-probe-interval", lagProbeInterval);
            positive("guard.blocked-threshold", blockedThreshold);
            Objects.requireNonNull(onBlocked, "guard.on-blocked");
        }
    }

    /**
     * TLS on the server's port (https, wss): on when a certificate or a keystore is set. The files are
     * read once, when the server starts; a file that cannot be read or used stops the start with a
     * message naming it.
     *
     * @param certificate      PEM certificate chain: the server's certificate first, then its intermediates
     * @param privateKey       PEM private key of that certificate (unencrypted PKCS#8, PKCS#1 or SEC1)
     * @param keystore         PKCS#12 keystore holding the key and its chain, instead of the two PEM files
     * @param keystorePassword its password (null: none)
     * @param protocols        protocol versions accepted: {@code TLSv1.3}, {@code TLSv1.2}; nothing older
     * @param handshakeTimeout from a connection's first byte to the end of its handshake
     * @param clientAuth       {@code none}, or ask clients for a certificate ({@code want}) or insist
     *                         ({@code need}); handlers read it with {@link keel.http.Request#peerCertificates()}
     * @param clientTrust      PEM certificates of the CAs that sign client certificates; required with
     *                         {@code want}/{@code need} (the JDK's public CAs are never what a server
     *                         means to trust for its clients)
     */
    public record Tls(Path certificate, Path privateKey, Path keystore, String keystorePassword, List<String> protocols,
                      Duration handshakeTimeout, ClientAuth clientAuth, Path clientTrust) {
        public Tls {
            protocols = keel.core.tls.Tls.checkProtocols(protocols);
            positive("server.tls.handshake-timeout", handshakeTimeout);
            Objects.requireNonNull(clientAuth, "server.tls.client-auth");
            if ((certificate == null) != (privateKey == null)) {
                throw new IllegalArgumentException("server.tls.certificate and server.tls.key go together: set both or neither");
            }
            if (certificate != null && keystore != null) {
                throw new IllegalArgumentException("set either server.tls.certificate and server.tls.key (PEM) or server.tls.keystore, not both");
            }
            if (keystorePassword != null && keystore == null) {
                throw new IllegalArgumentException("server.tls.keystore-password is set but server.tls.keystore is not");
            }
            if (clientAuth != ClientAuth.NONE && clientTrust == null) {
                throw new IllegalArgumentException("server.tls.client-auth " + clientAuth.name().toLowerCase(java.util.Locale.ROOT)
                        + " needs server.tls.client-trust: the CA certificates (PEM) that sign client certificates");
            }
            if (clientAuth == ClientAuth.NONE && clientTrust != null) {
                throw new IllegalArgumentException("server.tls.client-trust is set but server.tls.client-auth is none");
            }
            if (clientAuth != ClientAuth.NONE && certificate == null && keystore == null) {
                throw new IllegalArgumentException("server.tls.client-auth needs TLS: set server.tls.certificate and server.tls.key, or server.tls.keystore");
            }
        }

        /** Whether the server speaks TLS: a certificate or a keystore is set. */
        public boolean enabled() {
            return certificate != null || keystore != null;
        }

        /** Like the record's, with the keystore password hidden. */
        @Override
        public String toString() {
            return "Tls[certificate=" + certificate + ", privateKey=" + privateKey + ", keystore=" + keystore
                    + ", keystorePassword=" + (keystorePassword == null ? null : "***") + ", protocols=" + protocols
                    + ", handshakeTimeout=" + handshakeTimeout + ", clientAuth=" + clientAuth + ", clientTrust=" + clientTrust + "]";
        }
    }

    /**
     * gzip of response bodies (RFC 9110 §8.4.1.3), on both transports. A body is compressed when the
     * request's {@code Accept-Encoding} prefers gzip, its {@code Content-Type} is one of {@code types},
     * the response has no {@code Content-Encoding} of its own and its status carries a body (not 204,
     * 206 or 304). A fixed body also needs {@code minSize} bytes and must come out smaller; a streamed
     * body is compressed item by item, each flushed at once. Responses that qualify carry
     * {@code Vary: Accept-Encoding} whether or not this client asked.
     *
     * @param enabled false sends every body as the handler made it
     * @param minSize a fixed body shorter than this is sent as it is
     * @param level   the deflate level: 1 (fastest) to 9 (smallest)
     * @param types   the media types compressed: {@code type/subtype}, {@code type/*} or
     *                {@code type/*+suffix} (compared without case and parameters)
     */
    public record Compression(boolean enabled, int minSize, int level, List<String> types) {
        /** Text, JSON, JavaScript, XML and SVG: types that compress well. */
        public static final List<String> DEFAULT_TYPES = List.of("text/*", "application/json", "application/*+json",
                "application/javascript", "application/xml", "application/*+xml", "image/svg+xml");

        public Compression {
            if (minSize < 0) throw new IllegalArgumentException("compression.min-size must be >= 0: " + minSize);
            if (level < 1 || level > 9) throw new IllegalArgumentException("compression.level must be in 1..9: " + level);
            types = types.stream().map(type -> checkMediaRange(type.strip().toLowerCase(java.util.Locale.ROOT))).toList();
        }

        private static String checkMediaRange(String range) {
            int slash = range.indexOf('/');
            String type = slash < 0 ? "" : range.substring(0, slash);
            String subtype = slash < 0 ? "" : range.substring(slash + 1);
            boolean valid = isToken(type) && (subtype.equals("*") || isToken(subtype)
                    || (subtype.startsWith("*+") && isToken(subtype.substring(2))));
            if (!valid) throw new IllegalArgumentException("compression.types: expected type/subtype, type/* or type/*+suffix: " + range);
            return range;
        }

        /** A token of RFC 9110 §5.6.2 without '*', which stands for "any" here. */
        private static boolean isToken(String text) {
            return !text.isEmpty() && text.chars().allMatch(c -> c > ' ' && c < 0x7f && c != '*' && "\"(),/:;<=>?@[\\]{}".indexOf(c) < 0);
        }
    }

    /**
     * The format of log lines, and the access log: one line per request, written by a thread of its own
     * ({@link AccessLog}).
     *
     * @param format      {@code text} (key=value) or {@code json} (one object per line), for the access log
     *                    and, where the application applies it ({@code bin/keel serve}), every log line
     * @param access      write the access log
     * @param accessFile  the file the access log is appended to; null: standard output
     * @param accessQueue lines that may wait for the access log's writer; a block of lines (a loop's
     *                    turn, or a line of the blocking transport) that would go past it is dropped and
     *                    counted ({@link HttpServer#accessLogDropped()}), never waited for
     */
    public record Logging(LogFormat format, boolean access, Path accessFile, int accessQueue) {
        public Logging {
            Objects.requireNonNull(format, "log.format");
            if (accessQueue < 1 || accessQueue > 1 << 20) throw new IllegalArgumentException("log.access-queue must be in 1..1048576");
        }
    }

    public static ServerOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.host = host;
        b.port = port;
        b.transport = transport;
        b.execution = execution;
        b.threads = threads;
        b.backlog = limits.backlog();
        b.maxConnections = limits.maxConnections();
        b.maxHeadSize = limits.maxHeadSize();
        b.maxHeaderCount = limits.maxHeaderCount();
        b.maxBodySize = limits.maxBodySize();
        b.headReadTimeout = timeouts.headRead();
        b.idleTimeout = timeouts.idle();
        b.writeStallTimeout = timeouts.writeStall();
        b.bodyMinRate = timeouts.bodyMinRate();
        b.bodyRateWindow = timeouts.bodyRateWindow();
        b.lingerDrain = timeouts.lingerDrain();
        b.healthGrace = timeouts.healthGrace();
        b.grace = timeouts.grace();
        b.handlerDeadline = timeouts.handlerDeadline();
        b.loops = pools.loops();
        b.loopTurnBudget = pools.loopTurnBudget();
        b.workerThreads = pools.workerThreads();
        b.workerQueue = pools.workerQueue();
        b.virtualThreadLimit = pools.virtualThreadLimit();
        b.blockingThreads = pools.blockingThreads();
        b.blockingQueue = pools.blockingQueue();
        b.loopTaskQueue = pools.loopTaskQueue();
        b.highWaterMark = waterMarks.high();
        b.lowWaterMark = waterMarks.low();
        b.guardEnabled = guard.enabled();
        b.lagProbeInterval = guard.lagProbeInterval();
        b.blockedThreshold = guard.blockedThreshold();
        b.onBlocked = guard.onBlocked();
        b.wsMaxFrameSize = webSocket.maxFrameSize();
        b.wsMaxMessageSize = webSocket.maxMessageSize();
        b.wsMaxQueuedOutput = webSocket.maxQueuedOutput();
        b.wsCloseTimeout = webSocket.closeTimeout();
        b.wsIdleTimeout = webSocket.idleTimeout();
        b.wsPingInterval = webSocket.pingInterval();
        b.wsCompression = webSocket.compression();
        b.wsContextTakeover = webSocket.contextTakeover();
        b.wsCompressionLevel = webSocket.compressionLevel();
        b.tlsCertificate = tls.certificate();
        b.tlsPrivateKey = tls.privateKey();
        b.tlsKeystore = tls.keystore();
        b.tlsKeystorePassword = tls.keystorePassword();
        b.tlsProtocols = tls.protocols();
        b.tlsHandshakeTimeout = tls.handshakeTimeout();
        b.tlsClientAuth = tls.clientAuth();
        b.tlsClientTrust = tls.clientTrust();
        b.compressionEnabled = compression.enabled();
        b.compressionMinSize = compression.minSize();
        b.compressionLevel = compression.level();
        b.compressionTypes = compression.types();
        b.warmup = warmup;
        b.warmupRequests = warmupRequests;
        b.logFormat = logging.format();
        b.accessLog = logging.access();
        b.accessLogFile = logging.accessFile();
        b.accessLogQueue = logging.accessQueue();
        b.routes.addAll(routes);
        return b;
    }

    /** Flat setters named after the components; every default lives here. */
    public static final class Builder {
        private String host = "0.0.0.0";
        private int port = 8080;
        private Transport transport = Transport.NIO;
        private Execution execution = Execution.VIRTUAL_THREAD;
        private Threads threads = Threads.VIRTUAL;
        private int backlog = 1024;
        private int maxConnections = 10_000;
        private int maxHeadSize = 8 * 1024;
        private int maxHeaderCount = 100;
        private long maxBodySize = 10L * 1024 * 1024;
        private Duration headReadTimeout = Duration.ofSeconds(10);
        private Duration idleTimeout = Duration.ofSeconds(60);
        private Duration writeStallTimeout = Duration.ofSeconds(30);
        private int bodyMinRate = 240;
        private Duration bodyRateWindow = Duration.ofSeconds(10);
        private Duration lingerDrain = Duration.ofSeconds(2);
        private Duration healthGrace = Duration.ZERO;
        private Duration grace = Duration.ofSeconds(30);
        /** As long as the idle timeout, and the 60 s after which common proxies give up on a response anyway. */
        private Duration handlerDeadline = Duration.ofSeconds(60);
        private int loops = Runtime.getRuntime().availableProcessors();
        private Duration loopTurnBudget = EventLoop.DEFAULT_TURN_BUDGET;
        private int workerThreads = 200;
        private int workerQueue = 1000;
        private int virtualThreadLimit = 10_000;
        private int blockingThreads = 150;
        private int blockingQueue = 1000;
        private int loopTaskQueue = 65_536;
        private int highWaterMark = 64 * 1024;
        private int lowWaterMark = 32 * 1024;
        private boolean guardEnabled = true;
        private Duration lagProbeInterval = Duration.ofMillis(100);
        private Duration blockedThreshold = Duration.ofMillis(100);
        private OnBlocked onBlocked = OnBlocked.WARN;
        private int wsMaxFrameSize = WsOptions.defaults().maxFrameSize();
        private int wsMaxMessageSize = WsOptions.defaults().maxMessageSize();
        private int wsMaxQueuedOutput = WsOptions.defaults().maxQueuedOutput();
        private Duration wsCloseTimeout = WsOptions.defaults().closeTimeout();
        private Duration wsIdleTimeout = WsOptions.defaults().idleTimeout();
        private Duration wsPingInterval = WsOptions.defaults().pingInterval();
        private boolean wsCompression = WsOptions.defaults().compression();
        private boolean wsContextTakeover = WsOptions.defaults().contextTakeover();
        private int wsCompressionLevel = WsOptions.defaults().compressionLevel();
        private Path tlsCertificate = null;
        private Path tlsPrivateKey = null;
        private Path tlsKeystore = null;
        private String tlsKeystorePassword = null;
        private List<String> tlsProtocols = keel.core.tls.Tls.DEFAULT_PROTOCOLS;
        private Duration tlsHandshakeTimeout = Duration.ofSeconds(10);
        private ClientAuth tlsClientAuth = ClientAuth.NONE;
        private Path tlsClientTrust = null;
        private boolean compressionEnabled = true;
        private int compressionMinSize = 1024;
        private int compressionLevel = 6;
        private List<String> compressionTypes = Compression.DEFAULT_TYPES;
        private boolean warmup = false;
        private int warmupRequests = Warmup.DEFAULT_REQUESTS;
        private LogFormat logFormat = LogFormat.TEXT;
        private boolean accessLog = false;
        private Path accessLogFile = null;
        private int accessLogQueue = 8192;
        private final List<RouteSettings> routes = new java.util.ArrayList<>();

        private Builder() {
        }

        public Builder host(String host) { this.host = host; return this; }
        public Builder port(int port) { this.port = port; return this; }
        public Builder transport(Transport transport) { this.transport = transport; return this; }
        public Builder execution(Execution execution) { this.execution = execution; return this; }
        public Builder threads(Threads threads) { this.threads = threads; return this; }
        public Builder backlog(int backlog) { this.backlog = backlog; return this; }
        public Builder maxConnections(int maxConnections) { this.maxConnections = maxConnections; return this; }
        public Builder maxHeadSize(int maxHeadSize) { this.maxHeadSize = maxHeadSize; return this; }
        public Builder maxHeaderCount(int maxHeaderCount) { this.maxHeaderCount = maxHeaderCount; return this; }
        public Builder maxBodySize(long maxBodySize) { this.maxBodySize = maxBodySize; return this; }
        public Builder headReadTimeout(Duration headReadTimeout) { this.headReadTimeout = headReadTimeout; return this; }
        public Builder idleTimeout(Duration idleTimeout) { this.idleTimeout = idleTimeout; return this; }
        public Builder writeStallTimeout(Duration writeStallTimeout) { this.writeStallTimeout = writeStallTimeout; return this; }
        public Builder bodyMinRate(int bodyMinRate) { this.bodyMinRate = bodyMinRate; return this; }
        public Builder bodyRateWindow(Duration bodyRateWindow) { this.bodyRateWindow = bodyRateWindow; return this; }
        public Builder lingerDrain(Duration lingerDrain) { this.lingerDrain = lingerDrain; return this; }
        public Builder healthGrace(Duration healthGrace) { this.healthGrace = healthGrace; return this; }
        public Builder grace(Duration grace) { this.grace = grace; return this; }
        public Builder handlerDeadline(Duration handlerDeadline) { this.handlerDeadline = handlerDeadline; return this; }
        public Builder loops(int loops) { this.loops = loops; return this; }
        public Builder loopTurnBudget(Duration loopTurnBudget) { this.loopTurnBudget = loopTurnBudget; return this; }
        public Builder workerThreads(int workerThreads) { this.workerThreads = workerThreads; return this; }
        public Builder workerQueue(int workerQueue) { this.workerQueue = workerQueue; return this; }
        public Builder virtualThreadLimit(int virtualThreadLimit) { this.virtualThreadLimit = virtualThreadLimit; return this; }
        public Builder blockingThreads(int blockingThreads) { this.blockingThreads = blockingThreads; return this; }
        public Builder blockingQueue(int blockingQueue) { this.blockingQueue = blockingQueue; return this; }
        public Builder loopTaskQueue(int loopTaskQueue) { this.loopTaskQueue = loopTaskQueue; return this; }
        public Builder highWaterMark(int highWaterMark) { this.highWaterMark = highWaterMark; return this; }
        public Builder lowWaterMark(int lowWaterMark) { this.lowWaterMark = lowWaterMark; return this; }
        public Builder guardEnabled(boolean guardEnabled) { this.guardEnabled = guardEnabled; return this; }
        public Builder lagProbeInterval(Duration lagProbeInterval) { this.lagProbeInterval = lagProbeInterval; return this; }
        public Builder blockedThreshold(Duration blockedThreshold) { this.blockedThreshold = blockedThreshold; return this; }
        public Builder onBlocked(OnBlocked onBlocked) { this.onBlocked = onBlocked; return this; }
        public Builder wsMaxFrameSize(int wsMaxFrameSize) { this.wsMaxFrameSize = wsMaxFrameSize; return this; }
        public Builder wsMaxMessageSize(int wsMaxMessageSize) { this.wsMaxMessageSize = wsMaxMessageSize; return this; }
        public Builder wsMaxQueuedOutput(int wsMaxQueuedOutput) { this.wsMaxQueuedOutput = wsMaxQueuedOutput; return this; }
        public Builder wsCloseTimeout(Duration wsCloseTimeout) { this.wsCloseTimeout = wsCloseTimeout; return this; }
        public Builder wsIdleTimeout(Duration wsIdleTimeout) { this.wsIdleTimeout = wsIdleTimeout; return this; }
        public Builder wsPingInterval(Duration wsPingInterval) { this.wsPingInterval = wsPingInterval; return this; }
        public Builder wsCompression(boolean wsCompression) { this.wsCompression = wsCompression; return this; }
        public Builder wsContextTakeover(boolean wsContextTakeover) { this.wsContextTakeover = wsContextTakeover; return this; }
        public Builder wsCompressionLevel(int wsCompressionLevel) { this.wsCompressionLevel = wsCompressionLevel; return this; }
        public Builder tlsCertificate(Path tlsCertificate) { this.tlsCertificate = tlsCertificate; return this; }
        public Builder tlsPrivateKey(Path tlsPrivateKey) { this.tlsPrivateKey = tlsPrivateKey; return this; }
        public Builder tlsKeystore(Path tlsKeystore) { this.tlsKeystore = tlsKeystore; return this; }
        public Builder tlsKeystorePassword(String tlsKeystorePassword) { this.tlsKeystorePassword = tlsKeystorePassword; return this; }
        public Builder tlsProtocols(List<String> tlsProtocols) { this.tlsProtocols = tlsProtocols; return this; }
        public Builder tlsHandshakeTimeout(Duration tlsHandshakeTimeout) { this.tlsHandshakeTimeout = tlsHandshakeTimeout; return this; }
        public Builder tlsClientAuth(ClientAuth tlsClientAuth) { this.tlsClientAuth = tlsClientAuth; return this; }
        public Builder tlsClientTrust(Path tlsClientTrust) { this.tlsClientTrust = tlsClientTrust; return this; }
        public Builder compressionEnabled(boolean compressionEnabled) { this.compressionEnabled = compressionEnabled; return this; }
        public Builder compressionMinSize(int compressionMinSize) { this.compressionMinSize = compressionMinSize; return this; }
        public Builder compressionLevel(int compressionLevel) { this.compressionLevel = compressionLevel; return this; }
        public Builder compressionTypes(List<String> compressionTypes) { this.compressionTypes = compressionTypes; return this; }
        public Builder warmup(boolean warmup) { this.warmup = warmup; return this; }
        public Builder warmupRequests(int warmupRequests) { this.warmupRequests = warmupRequests; return this; }
        public Builder logFormat(LogFormat logFormat) { this.logFormat = logFormat; return this; }
        public Builder accessLog(boolean accessLog) { this.accessLog = accessLog; return this; }
        public Builder accessLogFile(Path accessLogFile) { this.accessLogFile = accessLogFile; return this; }
        public Builder accessLogQueue(int accessLogQueue) { this.accessLogQueue = accessLogQueue; return this; }

        /** Adds settings for the routes of one pattern (after those added before: a later one wins). */
        public Builder route(RouteSettings route) { this.routes.add(Objects.requireNonNull(route, "route")); return this; }

        /** Drops every route setting added so far. */
        public Builder clearRoutes() { this.routes.clear(); return this; }

        public ServerOptions build() {
            return new ServerOptions(host, port, transport, execution, threads,
                    new Limits(backlog, maxConnections, maxHeadSize, maxHeaderCount, maxBodySize),
                    new Timeouts(headReadTimeout, idleTimeout, writeStallTimeout, bodyMinRate, bodyRateWindow, lingerDrain, healthGrace, grace,
                            handlerDeadline),
                    new Pools(loops, loopTurnBudget, workerThreads, workerQueue, virtualThreadLimit, blockingThreads, blockingQueue, loopTaskQueue),
                    new WaterMarks(highWaterMark, lowWaterMark),
                    new Guard(guardEnabled, lagProbeInterval, blockedThreshold, onBlocked),
                    new WsOptions(wsMaxFrameSize, wsMaxMessageSize, wsMaxQueuedOutput, wsCloseTimeout, wsIdleTimeout, wsPingInterval,
                            wsCompression, wsContextTakeover, wsCompressionLevel),
                    new Tls(tlsCertificate, tlsPrivateKey, tlsKeystore, tlsKeystorePassword, tlsProtocols, tlsHandshakeTimeout,
                            tlsClientAuth, tlsClientTrust),
                    new Compression(compressionEnabled, compressionMinSize, compressionLevel, compressionTypes),
                    warmup, warmupRequests, new Logging(logFormat, accessLog, accessLogFile, accessLogQueue), routes);
        }
    }
}
