package keel.http.client;

import keel.core.buffer.BufferPool;
import keel.core.loop.EventLoop;
import keel.core.loop.LoopGroup;
import keel.core.net.Channel;
import keel.core.net.ChannelObserver;
import keel.http.ws.WsConnection;
import keel.http.ws.WsHandshake;
import keel.http.ws.WsListener;
import keel.http.ws.WsObserver;
import keel.http.ws.WsOptions;
import keel.http.ws.WsSession;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLEngine;

/**
 * A WebSocket client (RFC 6455, {@code ws://} and {@code wss://}) on Keel's event loops, with the
 * server's frame codec: every frame it sends is masked with a fresh key from a {@link SecureRandom}.
 * {@code wss} trusts what {@link ClientOptions.Tls} says (the JDK's default trust store unless given
 * a context or a trust file) and checks the host name.
 *
 * <pre>{@code
 * try (WebSocketClient client = WebSocketClient.create()) {
 *     WsSession session = client.connect(URI.create("ws://localhost:8080/ws/echo"), new WsListener() {
 *         public void onText(WsSession s, String text) { System.out.println(text); }
 *     }).join();
 *     session.send("hello");
 *     session.close().toCompletableFuture().join();
 * }
 * }</pre>
 *
 * Sessions behave as on a server ({@link WsSession}: ordered sends from any thread, the same bound
 * and close handshake, a lingering TCP close), and the listener's callbacks run on the session's
 * event loop, so they must not block. The client offers permessage-deflate (RFC 7692) unless its
 * options say {@link WsOptions#withCompression withCompression(false)}; a server's answer that is
 * malformed or agrees to anything not offered fails the connect. The host name is resolved on the thread that calls
 * {@link #connect}; the handshake must finish within 10 s.
 */
public final class WebSocketClient implements AutoCloseable {
    static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
    private static final int HIGH_WATER_MARK = 64 * 1024;
    private static final int LOW_WATER_MARK = 32 * 1024;

    private final LoopGroup loops;
    private final boolean ownsLoops;
    private final WsConnection.Settings settings;
    private final Map<EventLoop, Channel.Settings> channelSettings = new IdentityHashMap<>();
    private final SecureRandom random = new SecureRandom();
    private final AtomicLong ids = new AtomicLong();
    private final ClientTls tls;

    /** A client on {@code loops}, which it does not close; sessions spread over them in turn. */
    public WebSocketClient(LoopGroup loops, WsOptions options) {
        this(loops, options, ClientOptions.defaults().tls(), false);
    }

    /** A client on {@code loops}, which it does not close, securing {@code wss} sessions with {@code tls}. */
    public WebSocketClient(LoopGroup loops, WsOptions options, ClientOptions.Tls tls) {
        this(loops, options, tls, false);
    }

    private WebSocketClient(LoopGroup loops, WsOptions options, ClientOptions.Tls tls, boolean ownsLoops) {
        this.loops = Objects.requireNonNull(loops, "loops");
        this.tls = new ClientTls(Objects.requireNonNull(tls, "tls"));
        this.ownsLoops = ownsLoops;
        this.settings = new WsConnection.Settings(Objects.requireNonNull(options, "options"), HIGH_WATER_MARK, LOW_WATER_MARK,
                WsObserver.NONE);
        for (EventLoop loop : loops.loops()) {
            channelSettings.put(loop, new Channel.Settings(new BufferPool(16 * 1024, 64), Channel.TlsBuffers.of(16 * 1024, 16),
                    HIGH_WATER_MARK, LOW_WATER_MARK, Duration.ZERO, Duration.ofSeconds(2), tls.handshakeTimeout(), false, false, ChannelObserver.NONE));
        }
        WsHandshake.prepare(); // the loops check accept keys: load SHA-1 here, not on a loop
        random.nextInt(); // seeds the generator here too (keys and masks are drawn on the loops)
    }

    /** A client with its own event loop and the default options; {@link #close()} stops the loop. */
    public static WebSocketClient create() {
        return create(WsOptions.defaults(), 1);
    }

    /** A client with {@code loopCount} event loops of its own; {@link #close()} stops them. */
    public static WebSocketClient create(WsOptions options, int loopCount) {
        return new WebSocketClient(new LoopGroup(loopCount, "keel-ws-client"), options, ClientOptions.defaults().tls(), true);
    }

    /** {@link #connect(URI, WsListener, List)} offering no subprotocol. */
    public CompletableFuture<WsSession> connect(URI uri, WsListener listener) {
        return connect(uri, listener, List.of());
    }

    /**
     * Opens a session: TCP connect, the opening handshake offering {@code subprotocols}, then
     * {@code listener.onOpen}. Completes with the session, or fails with an {@link IOException} that
     * says why (refused, not a 101, a wrong accept key, a timeout).
     */
    public CompletableFuture<WsSession> connect(URI uri, WsListener listener, List<String> subprotocols) {
        Objects.requireNonNull(listener, "listener");
        CompletableFuture<WsSession> opened = new CompletableFuture<>();
        boolean secure = "wss".equalsIgnoreCase(uri.getScheme());
        if (!(secure || "ws".equalsIgnoreCase(uri.getScheme())) || uri.getHost() == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("expected a ws:// or wss://host[:port]/path URI: " + uri));
        }
        int port = uri.getPort() >= 0 ? uri.getPort() : secure ? 443 : 80;
        InetSocketAddress address = new InetSocketAddress(uri.getHost(), port);
        SSLEngine engine;
        try {
            engine = secure ? tls.get().newClientEngine(uri.getHost(), port) : null;
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (address.isUnresolved()) return CompletableFuture.failedFuture(new IOException("cannot resolve " + uri.getHost()));
        EventLoop loop = loops.next();
        var handshake = new WsClientHandshake(ids.incrementAndGet(), uri, List.copyOf(subprotocols), listener, random, settings, opened);
        try {
            loop.execute(() -> handshake.start(address, loop, channelSettings.get(loop), engine));
        } catch (RejectedExecutionException e) {
            opened.completeExceptionally(e);
        }
        return opened;
    }

    /** Stops the client's own loops (their sessions close at once; close them first for a handshake). */
    @Override
    public void close() {
        if (!ownsLoops) return;
        try {
            loops.shutdown(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
