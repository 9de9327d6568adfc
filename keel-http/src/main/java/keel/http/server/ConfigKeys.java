package keel.http.server;

import keel.http.router.RouteSettings;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The configuration reference: every {@link ServerOptions} component with its YAML key, its CLI flag,
 * what it means, and how its value is read. YAML files and command lines both go through
 * {@link #apply}, so the two can never disagree, and a wrong key or value is refused with a message
 * that names it.
 */
public final class ConfigKeys {

    /** One option: {@code yaml} is the dotted key ({@code server.port}), {@code flag} the CLI flag ({@code --port}). */
    public record Key(String yaml, String flag, String help, Function<ServerOptions, String> current,
                      BiConsumer<ServerOptions.Builder, String> setter) {
        /** The value this option has in {@code options}, as a configuration word. */
        public String valueIn(ServerOptions options) {
            return current.apply(options);
        }
    }

    /** A configuration key or value that cannot be used; the message names the key and the source. */
    public static final class ConfigException extends IllegalArgumentException {
        public ConfigException(String message) {
            super(message);
        }
    }

    private static final long MAX_BODY = Integer.MAX_VALUE - 16;

    public static final List<Key> ALL = List.of(
            key("server.host", "--host", "address to bind",
                    o -> o.host(), (b, v) -> b.host(v.trim())),
            key("server.port", "--port", "port to bind (0 picks a free one)",
                    o -> "" + o.port(), (b, v) -> b.port(ConfigValues.integer(v, 0, 65_535))),
            key("server.transport", "--transport", "nio (event loops) or blocking (a thread per connection)",
                    o -> o.transport().word(), (b, v) -> b.transport(ConfigValues.word(v, Transport.class))),
            key("server.execution", "--execution", "where handlers run on nio: event-loop, worker-pool or virtual-thread",
                    o -> o.execution().word(), (b, v) -> b.execution(ConfigValues.word(v, Execution.class))),
            key("server.threads", "--threads", "threads of the blocking transport: platform (bounded pool) or virtual",
                    o -> o.threads().word(), (b, v) -> b.threads(ConfigValues.word(v, Threads.class))),
            key("server.warmup", "--warmup", "run the hot paths, loops, buffers and resolver before the port opens: true or false",
                    o -> "" + o.warmup(), (b, v) -> b.warmup(ConfigValues.bool(v))),
            key("server.warmup-requests", "--warmup-requests",
                    "requests the warm-up sends over keep-alive connections (then 200 more, one per connection)",
                    o -> "" + o.warmupRequests(), (b, v) -> b.warmupRequests(ConfigValues.integer(v, 1, 1_000_000))),
            key("server.loops", "--loops", "event loops of the nio transport (one per processor unless set)",
                    o -> "" + o.pools().loops(), (b, v) -> b.loops(ConfigValues.integer(v, 1, 1024))),
            key("server.loop-turn-budget", "--loop-turn-budget",
                    "time a loop turn may spend on ready connections, then again on queued tasks, before it fires due timers",
                    o -> ConfigValues.duration(o.pools().loopTurnBudget()), (b, v) -> b.loopTurnBudget(ConfigValues.duration(v))),
            key("server.loop-task-queue", "--loop-task-queue",
                    "tasks each event loop may hold: answers coming back from other threads (503 past it) and new connections",
                    o -> "" + o.pools().loopTaskQueue(), (b, v) -> b.loopTaskQueue(ConfigValues.integer(v, 1, 1 << 24))),
            key("server.backlog", "--backlog", "connections the OS queues before accept",
                    o -> "" + o.limits().backlog(), (b, v) -> b.backlog(ConfigValues.integer(v, 1, 1 << 20))),
            key("server.max-connections", "--max-connections", "open connections; past it new ones get 503 and are closed",
                    o -> "" + o.limits().maxConnections(), (b, v) -> b.maxConnections(ConfigValues.integer(v, 1, 10_000_000))),
            key("limits.max-head-size", "--max-head-size", "request line plus headers (431; 414 for the request line)",
                    o -> ConfigValues.size(o.limits().maxHeadSize()), (b, v) -> b.maxHeadSize((int) ConfigValues.size(v, 256, 1 << 20))),
            key("limits.max-header-count", "--max-header-count", "header fields per request (431)",
                    o -> "" + o.limits().maxHeaderCount(), (b, v) -> b.maxHeaderCount(ConfigValues.integer(v, 1, 10_000))),
            key("limits.max-body-size", "--max-body-size", "request body (413)",
                    o -> ConfigValues.size(o.limits().maxBodySize()), (b, v) -> b.maxBodySize(ConfigValues.size(v, 0, MAX_BODY))),
            key("timeouts.head-read", "--head-read-timeout", "from a request's first byte to the end of its head (408)",
                    o -> ConfigValues.duration(o.timeouts().headRead()), (b, v) -> b.headReadTimeout(ConfigValues.duration(v))),
            key("timeouts.idle", "--idle-timeout", "idle keep-alive connection, or stalled body (408)",
                    o -> ConfigValues.duration(o.timeouts().idle()), (b, v) -> b.idleTimeout(ConfigValues.duration(v))),
            key("timeouts.write-stall", "--write-stall-timeout", "response bytes that make no progress this long (a client that stopped reading): close",
                    o -> ConfigValues.duration(o.timeouts().writeStall()), (b, v) -> b.writeStallTimeout(ConfigValues.duration(v))),
            key("timeouts.body-min-rate", "--body-min-rate", "the least a request body may average, in bytes/s (408 below it; 0: off)",
                    o -> "" + o.timeouts().bodyMinRate(), (b, v) -> b.bodyMinRate(ConfigValues.integer(v, 0, 1 << 30))),
            key("timeouts.body-rate-window", "--body-rate-window", "the credit a request body starts with and may save up against body-min-rate",
                    o -> ConfigValues.duration(o.timeouts().bodyRateWindow()), (b, v) -> b.bodyRateWindow(ConfigValues.duration(v))),
            key("timeouts.linger-drain", "--linger-drain", "how long a closing connection drains unread input",
                    o -> ConfigValues.duration(o.timeouts().lingerDrain()), (b, v) -> b.lingerDrain(ConfigValues.duration(v))),
            key("timeouts.health-grace", "--health-grace",
                    "how long a stopping server answers its health check 503, serving as before, before it stops accepting",
                    o -> ConfigValues.duration(o.timeouts().healthGrace()), (b, v) -> b.healthGrace(ConfigValues.duration(v))),
            key("timeouts.grace", "--grace", "how long a stopping server lets requests finish",
                    o -> ConfigValues.duration(o.timeouts().grace()), (b, v) -> b.grace(ConfigValues.duration(v))),
            key("timeouts.handler-deadline", "--handler-deadline",
                    "how long a handler may take before the client gets 503 (none: no deadline); routes may set their own",
                    o -> ConfigValues.deadline(o.timeouts().handlerDeadline()), (b, v) -> b.handlerDeadline(ConfigValues.deadline(v))),
            key("worker-pool.threads", "--worker-threads", "platform threads of the worker pool",
                    o -> "" + o.pools().workerThreads(), (b, v) -> b.workerThreads(ConfigValues.integer(v, 1, 100_000))),
            key("worker-pool.queue", "--worker-queue", "requests that may wait for a worker: past threads + queue unanswered requests, 503",
                    o -> "" + o.pools().workerQueue(), (b, v) -> b.workerQueue(ConfigValues.integer(v, 1, 10_000_000))),
            key("virtual-threads.max-concurrent", "--virtual-thread-limit", "requests on virtual threads at once (503 past it)",
                    o -> "" + o.pools().virtualThreadLimit(), (b, v) -> b.virtualThreadLimit(ConfigValues.integer(v, 1, 10_000_000))),
            key("blocking.platform-threads", "--blocking-threads", "platform threads of the blocking transport",
                    o -> "" + o.pools().blockingThreads(), (b, v) -> b.blockingThreads(ConfigValues.integer(v, 1, 100_000))),
            key("blocking.queue", "--blocking-queue", "accepted connections waiting for a platform thread (503 past it)",
                    o -> "" + o.pools().blockingQueue(), (b, v) -> b.blockingQueue(ConfigValues.integer(v, 1, 10_000_000))),
            key("write.high-water-mark", "--write-high-water-mark", "queued output at which a connection stops reading",
                    o -> ConfigValues.size(o.waterMarks().high()), (b, v) -> b.highWaterMark((int) ConfigValues.size(v, 1, 1 << 30))),
            key("write.low-water-mark", "--write-low-water-mark", "queued output below which it reads again",
                    o -> ConfigValues.size(o.waterMarks().low()), (b, v) -> b.lowWaterMark((int) ConfigValues.size(v, 0, 1 << 30))),
            key("guard.enabled", "--guard", "lag probe and blocked-loop watchdog on the event loops: true or false",
                    o -> "" + o.guard().enabled(), (b, v) -> b.guardEnabled(ConfigValues.bool(v))),
            key("guard.lag-probe-interval", "--lag-probe-interval", "how often each loop measures how late a timer fires",
                    o -> ConfigValues.duration(o.guard().lagProbeInterval()), (b, v) -> b.lagProbeInterval(ConfigValues.duration(v))),
            key("guard.blocked-threshold", "--blocked-threshold", "a loop stuck this long in one handler or task, or in one round of ready connections, is reported with its stack",
                    o -> ConfigValues.duration(o.guard().blockedThreshold()), (b, v) -> b.blockedThreshold(ConfigValues.duration(v))),
            key("guard.on-blocked", "--on-blocked", "warn, or offload: run a route caught blocking on virtual threads from then on",
                    o -> o.guard().onBlocked().word(), (b, v) -> b.onBlocked(ConfigValues.word(v, ServerOptions.OnBlocked.class))),
            key("websocket.max-frame-size", "--ws-max-frame-size", "largest WebSocket frame payload accepted (close 1009)",
                    o -> ConfigValues.size(o.webSocket().maxFrameSize()), (b, v) -> b.wsMaxFrameSize((int) ConfigValues.size(v, 125, MAX_BODY))),
            key("websocket.max-message-size", "--ws-max-message-size", "largest WebSocket message, fragments together (close 1009)",
                    o -> ConfigValues.size(o.webSocket().maxMessageSize()), (b, v) -> b.wsMaxMessageSize((int) ConfigValues.size(v, 1, MAX_BODY))),
            key("websocket.max-queued-output", "--ws-max-queued-output", "bytes a WebSocket session may queue for sending; past it a send fails",
                    o -> ConfigValues.size(o.webSocket().maxQueuedOutput()), (b, v) -> b.wsMaxQueuedOutput((int) ConfigValues.size(v, 1, MAX_BODY))),
            key("websocket.close-timeout", "--ws-close-timeout", "how long a WebSocket close handshake may take before TCP closes anyway",
                    o -> ConfigValues.duration(o.webSocket().closeTimeout()), (b, v) -> b.wsCloseTimeout(ConfigValues.duration(v))),
            key("websocket.idle-timeout", "--ws-idle-timeout", "a WebSocket session that receives nothing this long is closed (1001)",
                    o -> ConfigValues.duration(o.webSocket().idleTimeout()), (b, v) -> b.wsIdleTimeout(ConfigValues.duration(v))),
            key("websocket.ping-interval", "--ws-ping-interval", "how often a keep-alive ping goes to each WebSocket session (0s: never)",
                    o -> ConfigValues.duration(o.webSocket().pingInterval()), (b, v) -> b.wsPingInterval(ConfigValues.duration(v))),
            key("websocket.compression", "--ws-compression", "accept a WebSocket client's permessage-deflate offer (RFC 7692): true or false",
                    o -> "" + o.webSocket().compression(), (b, v) -> b.wsCompression(ConfigValues.bool(v))),
            key("websocket.context-takeover", "--ws-context-takeover",
                    "with compression, keep each compressor's window across messages: true, or false to reset it after each message",
                    o -> "" + o.webSocket().contextTakeover(), (b, v) -> b.wsContextTakeover(ConfigValues.bool(v))),
            key("websocket.compression-level", "--ws-compression-level", "deflate level of WebSocket compression: 1 (fastest) to 9 (smallest)",
                    o -> "" + o.webSocket().compressionLevel(), (b, v) -> b.wsCompressionLevel(ConfigValues.integer(v, 1, 9))),
            key("server.tls.certificate", "--tls-cert", "PEM certificate chain (server certificate first): turns TLS on, with --tls-key",
                    o -> ConfigValues.path(o.tls().certificate()), (b, v) -> b.tlsCertificate(ConfigValues.path(v))),
            key("server.tls.key", "--tls-key", "PEM private key of --tls-cert (PKCS#8, PKCS#1 or SEC1, unencrypted)",
                    o -> ConfigValues.path(o.tls().privateKey()), (b, v) -> b.tlsPrivateKey(ConfigValues.path(v))),
            key("server.tls.keystore", "--tls-keystore", "PKCS#12 keystore with the key and its chain: turns TLS on (instead of --tls-cert)",
                    o -> ConfigValues.path(o.tls().keystore()), (b, v) -> b.tlsKeystore(ConfigValues.path(v))),
            key("server.tls.keystore-password", "--tls-keystore-password", "password of --tls-keystore",
                    o -> ConfigValues.nullAsEmpty(o.tls().keystorePassword()), (b, v) -> b.tlsKeystorePassword(ConfigValues.emptyAsNull(v))),
            key("server.tls.protocols", "--tls-protocols", "TLS versions accepted, comma-separated: TLSv1.3, TLSv1.2",
                    o -> ConfigValues.list(o.tls().protocols()), (b, v) -> b.tlsProtocols(keel.core.tls.Tls.checkProtocols(ConfigValues.list(v)))),
            key("server.tls.handshake-timeout", "--tls-handshake-timeout", "from a TLS connection's first byte to the end of its handshake",
                    o -> ConfigValues.duration(o.tls().handshakeTimeout()), (b, v) -> b.tlsHandshakeTimeout(ConfigValues.duration(v))),
            key("server.tls.client-auth", "--tls-client-auth", "client certificates: none, want (ask) or need (refuse clients without one)",
                    o -> o.tls().clientAuth().name().toLowerCase(java.util.Locale.ROOT),
                    (b, v) -> b.tlsClientAuth(ConfigValues.word(v, keel.core.tls.ClientAuth.class))),
            key("server.tls.client-trust", "--tls-client-trust", "PEM certificates of the CAs that sign client certificates (with want or need)",
                    o -> ConfigValues.path(o.tls().clientTrust()), (b, v) -> b.tlsClientTrust(ConfigValues.path(v))),
            key("compression.enabled", "--compression", "gzip response bodies for clients that accept it: true or false",
                    o -> "" + o.compression().enabled(), (b, v) -> b.compressionEnabled(ConfigValues.bool(v))),
            key("compression.min-size", "--compression-min-size", "a fixed response body shorter than this is sent uncompressed",
                    o -> ConfigValues.size(o.compression().minSize()), (b, v) -> b.compressionMinSize((int) ConfigValues.size(v, 0, MAX_BODY))),
            key("compression.level", "--compression-level", "gzip level: 1 (fastest) to 9 (smallest)",
                    o -> "" + o.compression().level(), (b, v) -> b.compressionLevel(ConfigValues.integer(v, 1, 9))),
            key("compression.types", "--compression-types", "media types compressed, comma-separated: type/subtype, type/* or type/*+suffix",
                    o -> ConfigValues.list(o.compression().types()), (b, v) -> b.compressionTypes(ConfigValues.list(v))),
            key("log.format", "--log-format", "log lines and access log lines: text (key=value) or json (one object per line)",
                    o -> o.logging().format().word(), (b, v) -> b.logFormat(ConfigValues.word(v, keel.core.log.LogFormat.class))),
            key("log.access", "--access-log", "one line per request (method, target, status, bytes, duration, execution, request id): true or false",
                    o -> "" + o.logging().access(), (b, v) -> b.accessLog(ConfigValues.bool(v))),
            key("log.access-file", "--access-log-file", "file the access log is appended to (empty: standard output)",
                    o -> ConfigValues.path(o.logging().accessFile()), (b, v) -> b.accessLogFile(ConfigValues.path(v))),
            key("log.access-queue", "--access-log-queue", "access log lines waiting for the writer; past it lines are dropped and counted",
                    o -> "" + o.logging().accessQueue(), (b, v) -> b.accessLogQueue(ConfigValues.integer(v, 1, 1 << 20))));

    /** One field of an entry of the {@code routes:} section; {@code path} is required, the others optional. */
    public record RouteField(String name, String help, BiFunction<RouteSettings, String, RouteSettings> setter) {
    }

    public static final List<RouteField> ROUTE_FIELDS = List.of(
            new RouteField("path", "the route's pattern as the code declares it (/devices/{id}/status); required", (r, v) -> r),
            new RouteField("method", "GET, POST, …; absent: every method of that pattern", (r, v) -> r.method(v.trim())),
            new RouteField("execution", "event-loop, worker-pool or virtual-thread",
                    (r, v) -> r.execution(ConfigValues.word(v, Execution.class))),
            new RouteField("limit", "requests it runs at once (503 past it)", (r, v) -> r.limit(ConfigValues.integer(v, 1, 10_000_000))),
            new RouteField("deadline", "how long its handler may take before the client gets 503 (none: no deadline)",
                    (r, v) -> r.deadline(ConfigValues.deadline(v))),
            new RouteField("max-body", "its largest request body (413 past it)", (r, v) -> r.maxBodySize(ConfigValues.size(v, 0, MAX_BODY))));

    private ConfigKeys() {
    }

    /**
     * The settings of entry {@code index} of a {@code routes:} section, from its fields' words; an
     * unknown field, a missing path or a bad value is refused naming it ({@code routes[0].execution}).
     */
    public static RouteSettings route(int index, Map<String, String> fields, String source) {
        String prefix = "routes[" + index + "].";
        for (String name : fields.keySet()) {
            if (ROUTE_FIELDS.stream().noneMatch(field -> field.name().equals(name))) {
                throw new ConfigException("unknown configuration key '" + prefix + name + "' in " + source + " (a route takes "
                        + String.join(", ", ROUTE_FIELDS.stream().map(RouteField::name).toList()) + ")");
            }
        }
        String path = fields.get("path");
        if (path == null) throw new ConfigException(prefix + "path is missing in " + source + ": every route entry names its pattern");
        RouteSettings route;
        try {
            route = RouteSettings.of(path.trim());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("invalid value '" + path + "' for " + prefix + "path in " + source + ": " + e.getMessage());
        }
        for (RouteField field : ROUTE_FIELDS) {
            String value = fields.get(field.name());
            if (value == null) continue;
            try {
                route = field.setter().apply(route, value);
            } catch (IllegalArgumentException e) {
                throw new ConfigException("invalid value '" + value + "' for " + prefix + field.name() + " in " + source + ": " + e.getMessage());
            }
        }
        return route;
    }

    private static Key key(String yaml, String flag, String help, Function<ServerOptions, String> current,
                           BiConsumer<ServerOptions.Builder, String> setter) {
        return new Key(yaml, flag, help, current, setter);
    }

    public static Optional<Key> byYaml(String yaml) {
        return ALL.stream().filter(k -> k.yaml().equals(yaml)).findFirst();
    }

    public static Optional<Key> byFlag(String flag) {
        return ALL.stream().filter(k -> k.flag().equals(flag)).findFirst();
    }

    /** Sets the YAML key {@code yaml} from {@code source} (a file name or "command line"). */
    public static void applyYaml(ServerOptions.Builder builder, String yaml, String value, String source) {
        Key key = byYaml(yaml).orElseThrow(() -> new ConfigException(
                "unknown configuration key '" + yaml + "' in " + source + " (see 'bin/keel --help' for the keys)"));
        apply(builder, key, key.yaml(), value, source);
    }

    public static void applyFlag(ServerOptions.Builder builder, String flag, String value) {
        Key key = byFlag(flag).orElseThrow(() -> new ConfigException("unknown flag '" + flag + "' (see 'bin/keel --help')"));
        apply(builder, key, key.flag(), value, "the command line");
    }

    private static void apply(ServerOptions.Builder builder, Key key, String name, String value, String source) {
        try {
            key.setter().accept(builder, value);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("invalid value '" + value + "' for " + name + " in " + source + ": " + e.getMessage());
        }
    }

    /** Builds, turning a cross-field violation (say, low water mark above high) into a {@link ConfigException}. */
    public static ServerOptions build(ServerOptions.Builder builder) {
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new ConfigException("invalid configuration: " + e.getMessage());
        }
    }
}
