package keel.http.server;

import keel.core.log.LogFormat;
import keel.core.tls.ClientAuth;
import keel.http.Execution;
import keel.http.accesslog.AccessLog;
import keel.http.config.Knob;
import keel.http.config.Knob.As;
import keel.http.config.KnobBuilder;
import keel.http.config.KnobTable;
import keel.http.VirtualScheduler;
import keel.http.router.RouteSettings;
import keel.http.ws.WsOptions;

import static keel.http.config.ConfigValues.notNegative;
import static keel.http.config.ConfigValues.positive;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Every knob of an {@link HttpServer}, immutable. Each component that is a knob declares its YAML key,
 * its CLI flag, its default and its meaning with {@link Knob}; the nested records group them by
 * concern. {@link #KNOBS} reads those declarations for the {@link Builder}, {@code keel.yaml}, the
 * flags, {@code --help} and the reference table ({@code docs/configuration.md}).
 *
 * @param webSocket the limits and timeouts of WebSocket sessions (nio transport; see {@link WsOptions})
 * @param routes    settings of declared routes (execution, limit, deadline, body limit), applied in
 *                  order over the code's when the server starts ({@link RouteSettings}; null: none)
 */
public record ServerOptions(
        @Knob(key = "server.host", flag = "--host", value = "0.0.0.0", doc = "the address to bind")
        String host,
        @Knob(key = "server.port", flag = "--port", value = "8080", max = 65_535, doc = "the port to bind (0 picks a free one)")
        int port,
        @Knob(key = "server.transport", flag = "--transport", value = "nio",
                doc = "`nio` (event loops) or `blocking` (a thread per connection)")
        Transport transport,
        @Knob(key = "server.execution", flag = "--execution", value = "virtual-thread",
                doc = "where handlers run on nio: `event-loop`, `worker-pool`, `virtual-thread`; routes may set their own")
        Execution execution,
        @Knob(key = "server.threads", flag = "--threads", value = "virtual",
                doc = "the threads of the blocking transport: `platform` (a bounded pool) or `virtual`")
        Threads threads,
        @Knob(key = "server.native-io", flag = "--native-io", value = "false",
                doc = "`true`: on Linux, nio channels read and write through `recv` and `send` (the FFM API) where the JVM allows it (`bin/keel` does), not through the JDK's socket channel: less CPU a request, some 30 ms more to start (the first native call's set-up)")
        boolean nativeIo,
        Limits limits, Timeouts timeouts, Pools pools, WaterMarks waterMarks, Guard guard, WsOptions webSocket, Tls tls,
        Compression compression,
        @Knob(key = "server.warmup", flag = "--warmup", value = "false",
                doc = "run every path a request can take (classes, threads), the loops, buffer pools and resolver before the port opens; `bin/keel serve` turns it on")
        boolean warmup,
        @Knob(key = "server.warmup-requests", flag = "--warmup-requests", value = "" + Warmup.DEFAULT_REQUESTS, min = 1, max = 1_000_000,
                doc = "requests the warm-up sends over keep-alive connections (at most: its time budget may end it sooner), then a quarter as many (at most 200) one per connection; from 500 on it also waits for the JIT to compile what they made hot")
        int warmupRequests,
        Logging logging, List<RouteSettings> routes) {

    /** The knobs of these options, read from the declarations. */
    public static final KnobTable<ServerOptions> KNOBS = KnobTable.of(ServerOptions.class, ServerOptions::of);

    private static ServerOptions of(KnobTable.Values v) {
        return new ServerOptions(v.get("server.host"), v.get("server.port"), v.get("server.transport"), v.get("server.execution"),
                v.get("server.threads"), v.get("server.native-io"),
                new Limits(v.get("server.backlog"), v.get("server.max-connections"), v.get("limits.max-head-size"),
                        v.get("limits.max-header-count"), v.get("limits.max-body-size")),
                new Timeouts(v.get("timeouts.head-read"), v.get("timeouts.idle"), v.get("timeouts.write-stall"), v.get("timeouts.stream-stall"),
                        v.get("timeouts.body-min-rate"), v.get("timeouts.body-rate-window"), v.get("timeouts.linger-drain"),
                        v.get("timeouts.health-grace"), v.get("timeouts.grace"), v.get("timeouts.handler-deadline")),
                new Pools(v.get("server.loops"), v.get("server.loop-turn-budget"), v.get("worker-pool.threads"), v.get("worker-pool.queue"),
                        v.get("virtual-threads.max-concurrent"), v.get("virtual-threads.scheduler"), v.get("blocking.platform-threads"),
                        v.get("blocking.queue"), v.get("server.loop-task-queue"), v.get("server.pipeline-run")),
                new WaterMarks(v.get("write.high-water-mark"), v.get("write.low-water-mark")),
                new Guard(v.get("guard.enabled"), v.get("guard.lag-probe-interval"), v.get("guard.blocked-threshold"), v.get("guard.on-blocked")),
                WsOptions.of(v),
                new Tls(v.get("server.tls.certificate"), v.get("server.tls.key"), v.get("server.tls.keystore"), v.get("server.tls.keystore-password"),
                        v.get("server.tls.protocols"), v.get("server.tls.handshake-timeout"), v.get("server.tls.client-auth"),
                        v.get("server.tls.client-trust")),
                new Compression(v.get("compression.enabled"), v.get("compression.min-size"), v.get("compression.level"), v.get("compression.types")),
                v.get("server.warmup"), v.get("server.warmup-requests"),
                new Logging(v.get("log.format"), v.get("log.access"), v.get("log.access-file"), v.get("log.access-queue"),
                        v.get("log.access-file-drop-behind")),
                v.get("routes"));
    }

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
        routes = routes == null ? List.of() : List.copyOf(routes);
        if (port < 0 || port > 65_535) throw new IllegalArgumentException("port must be in 0..65535: " + port);
        if (warmupRequests < 1) throw new IllegalArgumentException("warmupRequests must be at least 1: " + warmupRequests);
    }

    public record Limits(
            @Knob(key = "server.backlog", flag = "--backlog", value = "1024", min = 1, max = 1 << 20,
                    doc = "the connections the OS queues before accept")
            int backlog,
            @Knob(key = "server.max-connections", flag = "--max-connections", value = "10000", min = 1, max = 10_000_000,
                    doc = "the open connections; past this, a new connection gets 503 and a lingering close")
            int maxConnections,
            @Knob(key = "limits.max-head-size", flag = "--max-head-size", value = "8KiB", as = As.SIZE, min = 256, max = 1 << 20,
                    doc = "the request line plus header fields (431; 414 for the request line)")
            int maxHeadSize,
            @Knob(key = "limits.max-header-count", flag = "--max-header-count", value = "100", min = 1, max = 10_000,
                    doc = "the header fields per request (431)")
            int maxHeaderCount,
            @Knob(key = "limits.max-body-size", flag = "--max-body-size", value = "10MiB", as = As.SIZE, max = Knob.MAX_SIZE,
                    doc = "the request body (413); a route may set its own")
            long maxBodySize) {
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

    public record Timeouts(
            @Knob(key = "timeouts.head-read", flag = "--head-read-timeout", value = "10s",
                    doc = "from a request's first byte to the end of its head (408): a total, so a head trickled in byte by byte is bounded too")
            Duration headRead,
            @Knob(key = "timeouts.idle", flag = "--idle-timeout", value = "1m",
                    doc = "an idle keep-alive connection, or a stalled body (408)")
            Duration idle,
            @Knob(key = "timeouts.write-stall", flag = "--write-stall-timeout", value = "30s",
                    doc = "queued response bytes that make no progress this long (a client that stopped reading): the connection closes")
            Duration writeStall,
            @Knob(key = "timeouts.stream-stall", flag = "--stream-stall-timeout", value = "1m", as = As.DEADLINE,
                    doc = "how long a streamed response body may wait for its publisher's next item; past it the body is cut short, the connection closes and it is counted (`none`: no limit)")
            Duration streamStall,
            @Knob(key = "timeouts.body-min-rate", flag = "--body-min-rate", value = "240", max = 1 << 30,
                    doc = "the least a request body may average, in bytes/s; below it a 408 (`0`: off)")
            int bodyMinRate,
            @Knob(key = "timeouts.body-rate-window", flag = "--body-rate-window", value = "10s",
                    doc = "the credit a request body starts with, and the most it may save by sending faster than `body-min-rate`")
            Duration bodyRateWindow,
            @Knob(key = "timeouts.linger-drain", flag = "--linger-drain", value = "2s",
                    doc = "how long a closing connection drains unread input (at most 1 MiB)")
            Duration lingerDrain,
            @Knob(key = "timeouts.health-grace", flag = "--health-grace", value = "0s",
                    doc = "how long a stopping server answers its health check 503 while it serves as before, then stops accepting: a load balancer's time to take it out; `bin/keel serve` waits 5 s")
            Duration healthGrace,
            @Knob(key = "timeouts.grace", flag = "--grace", value = "30s",
                    doc = "how long a stopping server lets requests finish")
            Duration grace,
            @Knob(key = "timeouts.handler-deadline", flag = "--handler-deadline", value = "1m", as = As.DEADLINE,
                    doc = "how long a handler may take before its client gets 503 (`none`: no deadline); a route may set its own")
            Duration handlerDeadline) {
        public Timeouts {
            positive("head-read", headRead);
            positive("idle", idle);
            positive("write-stall", writeStall);
            notNegative("stream-stall", streamStall);
            if (bodyMinRate < 0 || bodyMinRate > 1 << 30) throw new IllegalArgumentException("timeouts.body-min-rate must be in 0..1073741824 bytes/s");
            positive("body-rate-window", bodyRateWindow);
            positive("linger-drain", lingerDrain);
            notNegative("health-grace", healthGrace);
            Objects.requireNonNull(grace, "grace");
            notNegative("handler-deadline", handlerDeadline);
        }
    }

    public record Pools(
            @Knob(key = "server.loops", flag = "--loops", value = Knob.PROCESSORS, min = 1, max = 1024,
                    doc = "the event loops of the nio transport")
            int loops,
            @Knob(key = "server.loop-turn-budget", flag = "--loop-turn-budget", value = "1ms",
                    doc = "how long one loop turn may spend on ready connections, and then again on queued tasks, before it fires due timers and selects again")
            Duration loopTurnBudget,
            @Knob(key = "worker-pool.threads", flag = "--worker-threads", value = "200", min = 1, max = 100_000,
                    doc = "the platform threads of the worker pool")
            int workerThreads,
            @Knob(key = "worker-pool.queue", flag = "--worker-queue", value = "1000", min = 1, max = 10_000_000,
                    doc = "the requests that may wait for a worker: past threads + queue unanswered requests, 503")
            int workerQueue,
            @Knob(key = "virtual-threads.max-concurrent", flag = "--virtual-thread-limit", value = "10000", min = 1, max = 10_000_000,
                    doc = "the requests on virtual threads at once (503 past it)")
            int virtualThreadLimit,
            @Knob(key = "virtual-threads.scheduler", flag = "--virtual-thread-scheduler", value = "jdk",
                    doc = "what runs those virtual threads: `jdk` (the JDK's scheduler), `keel` (Keel's carrier threads, one set for the JVM, woken once per loop turn and sized by the JDK's `jdk.virtualThreadScheduler.parallelism` and `.maxPoolSize`) or `loop` (the connection's event loop runs its request's virtual thread as one of its tasks: no thread to wake, but a virtual thread that computes for long or blocks pinned to its carrier holds the loop); `keel` and `loop` need the JVM to open `java.base/java.lang` to Keel, which `bin/keel` then does (else the JDK's scheduler runs them)")
            VirtualScheduler virtualScheduler,
            @Knob(key = "blocking.platform-threads", flag = "--blocking-threads", value = "150", min = 1, max = 100_000,
                    doc = "the platform threads of the blocking transport (one per connection)")
            int blockingThreads,
            @Knob(key = "blocking.queue", flag = "--blocking-queue", value = "1000", min = 1, max = 10_000_000,
                    doc = "the accepted connections waiting for a platform thread (503 past it)")
            int blockingQueue,
            @Knob(key = "server.loop-task-queue", flag = "--loop-task-queue", value = "65536", min = 1, max = 1 << 24,
                    doc = "the tasks each event loop may hold: answers coming back from other threads (each request in flight reserves the place of its answer; 503 past it) and new connections (closed, counted, past it)")
            int loopTaskQueue,
            @Knob(key = "server.pipeline-run", flag = "--pipeline-run", value = "16", max = 1024,
                    doc = "the requests pipelined behind one handled off the loop that may join its run, to run after it on its thread with their answers written together (`0`: each handed over alone)")
            int pipelineRun) {
        public Pools {
            positive("loops", loops);
            positive("server.loop-task-queue", loopTaskQueue);
            if (pipelineRun < 0 || pipelineRun > 1024) throw new IllegalArgumentException("server.pipeline-run must be in 0..1024: " + pipelineRun);
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
    public record WaterMarks(
            @Knob(key = "write.high-water-mark", flag = "--write-high-water-mark", value = "64KiB", as = As.SIZE, min = 1, max = 1 << 30,
                    doc = "the queued output at which a connection stops reading")
            int high,
            @Knob(key = "write.low-water-mark", flag = "--write-low-water-mark", value = "32KiB", as = As.SIZE, max = 1 << 30,
                    doc = "the queued output below which it reads again")
            int low) {
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

    /** The guard of the nio transport's event loops. */
    public record Guard(
            @Knob(key = "guard.enabled", flag = "--guard", value = "true",
                    doc = "the lag probe and blocked-loop watchdog on the event loops")
            boolean enabled,
            @Knob(key = "guard.lag-probe-interval", flag = "--lag-probe-interval", value = "100ms",
                    doc = "how often each loop measures how late a timer fires")
            Duration lagProbeInterval,
            @Knob(key = "guard.blocked-threshold", flag = "--blocked-threshold", value = "100ms",
                    doc = "a loop stuck this long in one handler or task, or in one round of ready connections, is reported with its stack")
            Duration blockedThreshold,
            @Knob(key = "guard.on-blocked", flag = "--on-blocked", value = "warn",
                    doc = "`warn`, or `offload`: run a route caught blocking on virtual threads from then on")
            OnBlocked onBlocked) {
        public Guard {
            positive("guard.lag-probe-interval", lagProbeInterval);
            positive("guard.blocked-threshold", blockedThreshold);
            Objects.requireNonNull(onBlocked, "guard.on-blocked");
        }
    }

    /**
     * TLS on the server's port (https, wss): on when a certificate or a keystore is set. The files are
     * read once, when the server starts; a file that cannot be read or used stops the start with a
     * message naming it. With client certificates, handlers read them with
     * {@link keel.http.Request#peerCertificates()}; the JDK's public CAs are never what a server means
     * to trust for its clients, so {@code clientTrust} is required.
     */
    public record Tls(
            @Knob(key = "server.tls.certificate", flag = "--tls-cert", value = "",
                    doc = "the PEM certificate chain (the server's certificate first, then its intermediates): turns TLS on, with `--tls-key`")
            Path certificate,
            @Knob(key = "server.tls.key", flag = "--tls-key", value = "",
                    doc = "the PEM private key of that certificate: unencrypted PKCS#8, PKCS#1 or SEC1")
            Path privateKey,
            @Knob(key = "server.tls.keystore", flag = "--tls-keystore", value = "",
                    doc = "a PKCS#12 keystore holding the key and its chain: turns TLS on, instead of the two PEM files")
            Path keystore,
            @Knob(key = "server.tls.keystore-password", flag = "--tls-keystore-password", value = "", as = As.VERBATIM_OR_UNSET,
                    doc = "the keystore's password")
            String keystorePassword,
            @Knob(key = "server.tls.protocols", flag = "--tls-protocols", value = "TLSv1.3,TLSv1.2", as = As.TLS_PROTOCOLS,
                    doc = "the TLS versions accepted, comma-separated; nothing below TLS 1.2")
            List<String> protocols,
            @Knob(key = "server.tls.handshake-timeout", flag = "--tls-handshake-timeout", value = "10s",
                    doc = "from a TLS connection's first byte to the end of its handshake")
            Duration handshakeTimeout,
            @Knob(key = "server.tls.client-auth", flag = "--tls-client-auth", value = "none",
                    doc = "client certificates: `none`, `want` (ask) or `need` (refuse a client without one)")
            ClientAuth clientAuth,
            @Knob(key = "server.tls.client-trust", flag = "--tls-client-trust", value = "",
                    doc = "the PEM certificates of the CAs that sign client certificates; required with `want` and `need`")
            Path clientTrust) {
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
     */
    public record Compression(
            @Knob(key = "compression.enabled", flag = "--compression", value = "true",
                    doc = "gzip response bodies for clients that accept it")
            boolean enabled,
            @Knob(key = "compression.min-size", flag = "--compression-min-size", value = "1KiB", as = As.SIZE, max = Knob.MAX_SIZE,
                    doc = "a fixed response body shorter than this is sent uncompressed (a streamed one is compressed whatever its size)")
            int minSize,
            @Knob(key = "compression.level", flag = "--compression-level", value = "6", min = 1, max = 9,
                    doc = "the gzip level: 1 (fastest) to 9 (smallest)")
            int level,
            @Knob(key = "compression.types", flag = "--compression-types",
                    value = "text/*,application/json,application/*+json,application/javascript,application/xml,application/*+xml,image/svg+xml",
                    doc = "the media types compressed, comma-separated: `type/subtype`, `type/*` or `type/*+suffix` (compared without case and parameters)")
            List<String> types) {
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
     * ({@link AccessLog}). A block of access lines (a loop's turn, or a line of the blocking transport)
     * that would take the queue past {@code accessQueue} is dropped and counted
     * ({@link HttpServer#accessLogDropped()}), never waited for.
     */
    public record Logging(
            @Knob(key = "log.format", flag = "--log-format", value = "text",
                    doc = "log lines and access log lines: `text` (key=value) or `json` (one object per line); `bin/keel serve` applies it to every line it writes")
            LogFormat format,
            @Knob(key = "log.access", flag = "--access-log", value = "false",
                    doc = "one line per request: method, target, status, bytes in and out, duration, execution, loop and request id; `bin/keel serve` turns it on")
            boolean access,
            @Knob(key = "log.access-file", flag = "--access-log-file", value = "",
                    doc = "the file the access log is appended to (empty: standard output)")
            Path accessFile,
            @Knob(key = "log.access-queue", flag = "--access-log-queue", value = "65536", min = 1, max = 1 << 20,
                    doc = "the access log lines that may wait for its writer (about 13 MiB of 200-byte lines when full, 65 ms at a million lines a second: room for the file system's stalls); a block of lines that would take the queue past it is dropped and counted, never waited for")
            int accessQueue,
            @Knob(key = "log.access-file-drop-behind", flag = "--access-log-file-drop-behind", value = "true",
                    doc = "drop the access log file's pages from the page cache once they are on the disk (Linux, when native access is enabled for Keel, as `bin/keel` does): a busy log then neither fills the page cache nor pays to copy into fresh pages; `false` leaves them to the kernel")
            boolean accessFileDropBehind) {
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
        Builder builder = new Builder().from(this);
        builder.routes.addAll(routes);
        return builder;
    }

    /** Flat setters, each naming the YAML key of its knob; the defaults are the declarations'. */
    public static final class Builder extends KnobBuilder<ServerOptions, Builder> {
        private final List<RouteSettings> routes = new ArrayList<>();

        private Builder() {
            super(KNOBS);
        }

        public Builder host(String host) { return set("server.host", host); }
        public Builder port(int port) { return set("server.port", port); }
        public Builder transport(Transport transport) { return set("server.transport", transport); }
        public Builder execution(Execution execution) { return set("server.execution", execution); }
        public Builder threads(Threads threads) { return set("server.threads", threads); }
        public Builder nativeIo(boolean nativeIo) { return set("server.native-io", nativeIo); }
        public Builder backlog(int backlog) { return set("server.backlog", backlog); }
        public Builder maxConnections(int maxConnections) { return set("server.max-connections", maxConnections); }
        public Builder maxHeadSize(int maxHeadSize) { return set("limits.max-head-size", maxHeadSize); }
        public Builder maxHeaderCount(int maxHeaderCount) { return set("limits.max-header-count", maxHeaderCount); }
        public Builder maxBodySize(long maxBodySize) { return set("limits.max-body-size", maxBodySize); }
        public Builder headReadTimeout(Duration headReadTimeout) { return set("timeouts.head-read", headReadTimeout); }
        public Builder idleTimeout(Duration idleTimeout) { return set("timeouts.idle", idleTimeout); }
        public Builder writeStallTimeout(Duration writeStallTimeout) { return set("timeouts.write-stall", writeStallTimeout); }
        public Builder streamStallTimeout(Duration streamStallTimeout) { return set("timeouts.stream-stall", streamStallTimeout); }
        public Builder bodyMinRate(int bodyMinRate) { return set("timeouts.body-min-rate", bodyMinRate); }
        public Builder bodyRateWindow(Duration bodyRateWindow) { return set("timeouts.body-rate-window", bodyRateWindow); }
        public Builder lingerDrain(Duration lingerDrain) { return set("timeouts.linger-drain", lingerDrain); }
        public Builder healthGrace(Duration healthGrace) { return set("timeouts.health-grace", healthGrace); }
        public Builder grace(Duration grace) { return set("timeouts.grace", grace); }
        public Builder handlerDeadline(Duration handlerDeadline) { return set("timeouts.handler-deadline", handlerDeadline); }
        public Builder loops(int loops) { return set("server.loops", loops); }
        public Builder loopTurnBudget(Duration loopTurnBudget) { return set("server.loop-turn-budget", loopTurnBudget); }
        public Builder workerThreads(int workerThreads) { return set("worker-pool.threads", workerThreads); }
        public Builder workerQueue(int workerQueue) { return set("worker-pool.queue", workerQueue); }
        public Builder virtualThreadLimit(int virtualThreadLimit) { return set("virtual-threads.max-concurrent", virtualThreadLimit); }
        public Builder virtualScheduler(VirtualScheduler virtualScheduler) { return set("virtual-threads.scheduler", virtualScheduler); }
        public Builder blockingThreads(int blockingThreads) { return set("blocking.platform-threads", blockingThreads); }
        public Builder blockingQueue(int blockingQueue) { return set("blocking.queue", blockingQueue); }
        public Builder loopTaskQueue(int loopTaskQueue) { return set("server.loop-task-queue", loopTaskQueue); }
        public Builder pipelineRun(int pipelineRun) { return set("server.pipeline-run", pipelineRun); }
        public Builder highWaterMark(int highWaterMark) { return set("write.high-water-mark", highWaterMark); }
        public Builder lowWaterMark(int lowWaterMark) { return set("write.low-water-mark", lowWaterMark); }
        public Builder guardEnabled(boolean guardEnabled) { return set("guard.enabled", guardEnabled); }
        public Builder lagProbeInterval(Duration lagProbeInterval) { return set("guard.lag-probe-interval", lagProbeInterval); }
        public Builder blockedThreshold(Duration blockedThreshold) { return set("guard.blocked-threshold", blockedThreshold); }
        public Builder onBlocked(OnBlocked onBlocked) { return set("guard.on-blocked", onBlocked); }
        public Builder wsMaxFrameSize(int wsMaxFrameSize) { return set("websocket.max-frame-size", wsMaxFrameSize); }
        public Builder wsMaxMessageSize(int wsMaxMessageSize) { return set("websocket.max-message-size", wsMaxMessageSize); }
        public Builder wsMaxQueuedOutput(int wsMaxQueuedOutput) { return set("websocket.max-queued-output", wsMaxQueuedOutput); }
        public Builder wsCloseTimeout(Duration wsCloseTimeout) { return set("websocket.close-timeout", wsCloseTimeout); }
        public Builder wsIdleTimeout(Duration wsIdleTimeout) { return set("websocket.idle-timeout", wsIdleTimeout); }
        public Builder wsPingInterval(Duration wsPingInterval) { return set("websocket.ping-interval", wsPingInterval); }
        public Builder wsCompression(boolean wsCompression) { return set("websocket.compression", wsCompression); }
        public Builder wsContextTakeover(boolean wsContextTakeover) { return set("websocket.context-takeover", wsContextTakeover); }
        public Builder wsCompressionLevel(int wsCompressionLevel) { return set("websocket.compression-level", wsCompressionLevel); }
        public Builder tlsCertificate(Path tlsCertificate) { return set("server.tls.certificate", tlsCertificate); }
        public Builder tlsPrivateKey(Path tlsPrivateKey) { return set("server.tls.key", tlsPrivateKey); }
        public Builder tlsKeystore(Path tlsKeystore) { return set("server.tls.keystore", tlsKeystore); }
        public Builder tlsKeystorePassword(String tlsKeystorePassword) { return set("server.tls.keystore-password", tlsKeystorePassword); }
        public Builder tlsProtocols(List<String> tlsProtocols) { return set("server.tls.protocols", tlsProtocols); }
        public Builder tlsHandshakeTimeout(Duration tlsHandshakeTimeout) { return set("server.tls.handshake-timeout", tlsHandshakeTimeout); }
        public Builder tlsClientAuth(ClientAuth tlsClientAuth) { return set("server.tls.client-auth", tlsClientAuth); }
        public Builder tlsClientTrust(Path tlsClientTrust) { return set("server.tls.client-trust", tlsClientTrust); }
        public Builder compressionEnabled(boolean compressionEnabled) { return set("compression.enabled", compressionEnabled); }
        public Builder compressionMinSize(int compressionMinSize) { return set("compression.min-size", compressionMinSize); }
        public Builder compressionLevel(int compressionLevel) { return set("compression.level", compressionLevel); }
        public Builder compressionTypes(List<String> compressionTypes) { return set("compression.types", compressionTypes); }
        public Builder warmup(boolean warmup) { return set("server.warmup", warmup); }
        public Builder warmupRequests(int warmupRequests) { return set("server.warmup-requests", warmupRequests); }
        public Builder logFormat(LogFormat logFormat) { return set("log.format", logFormat); }
        public Builder accessLog(boolean accessLog) { return set("log.access", accessLog); }
        public Builder accessLogFile(Path accessLogFile) { return set("log.access-file", accessLogFile); }
        public Builder accessLogQueue(int accessLogQueue) { return set("log.access-queue", accessLogQueue); }
        public Builder accessLogFileDropBehind(boolean accessLogFileDropBehind) { return set("log.access-file-drop-behind", accessLogFileDropBehind); }

        /** Adds settings for the routes of one pattern (after those added before: a later one wins). */
        public Builder route(RouteSettings route) { this.routes.add(Objects.requireNonNull(route, "route")); return this; }

        /** Drops every route setting added so far. */
        public Builder clearRoutes() { this.routes.clear(); return this; }

        @Override
        public ServerOptions build() {
            set("routes", routes);
            return super.build();
        }
    }
}
