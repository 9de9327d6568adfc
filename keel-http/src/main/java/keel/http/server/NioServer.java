package keel.http.server;

import keel.core.guard.LagProbe;
import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.core.loop.LoopGroup;
import keel.core.net.Acceptor;
import keel.core.net.Channel;
import keel.core.net.Protocol;
import keel.http.execution.Rejection;
import keel.http.execution.Responses;
import keel.http.router.Route;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLEngine;

/** The nio transport: an acceptor thread and a group of event loops that own the connections. */
final class NioServer implements HttpServer.Listener {
    private static final Log LOG = Log.of(NioServer.class);

    private final ServerContext context;
    private final ServerOptions options;
    private final LoopGroup loops;
    private final Map<EventLoop, LoopConnections> homes = new IdentityHashMap<>();
    private final OpenCount openConnections = new OpenCount();
    private final AtomicLong connectionIds = new AtomicLong();
    private Acceptor acceptor;
    private final LoopGuard guard;

    NioServer(ServerContext context) throws IOException {
        this.context = context;
        this.options = context.options();
        if (options.nativeIo()) Channel.prepareNativeIo(); // here, not on the first connection's loop
        this.loops = new LoopGroup(options.pools().loops(), "keel-loop", options.pools().loopTurnBudget(),
                options.pools().loopTaskQueue());
        for (EventLoop loop : loops.loops()) {
            LoopConnections home = new LoopConnections(loop, this);
            homes.put(loop, home);
            loop.execute(home::startSweeping);
        }
        if (options.warmup()) onEveryLoop(LoopConnections::prepare);
        this.guard = options.guard().enabled()
                ? new LoopGuard(loops.loops(), options.guard(), context.dispatcher(), context.observer()) : null;
    }

    /** Binds and starts accepting: the last step of a start, once everything a request needs is ready. */
    @Override
    public void open() throws IOException {
        var limits = options.limits();
        try {
            acceptor = new Acceptor(new InetSocketAddress(options.host(), options.port()), limits.backlog(), loops, this::initialize,
                    () -> context.observer().onDropped(ServerObserver.Drop.HANDOFF_REFUSED));
        } catch (IOException e) {
            if (guard != null) guard.close();
            shutdownLoops();
            throw e;
        }
        acceptor.start();
    }

    /** On the chosen loop's thread: sets up the connection, or refuses it past the connection limit. */
    private void initialize(SocketChannel socket, EventLoop loop) {
        LoopConnections home = homes.get(loop);
        Protocol protocol;
        SSLEngine engine = null;
        if (openConnections.opened() > options.limits().maxConnections()) {
            context.observer().onRejected(Rejection.CONNECTION_LIMIT);
            LOG.debug("connection_refused", "reason", "max_connections", "limit", options.limits().maxConnections());
            // Over TLS a 503 needs a handshake first: the work an overloaded server refuses.
            protocol = context.tls() != null ? REFUSED_HANDSHAKE : new Http1Protocol(connectionIds.incrementAndGet(), home,
                    Responses.overloaded("connection limit reached (" + options.limits().maxConnections() + ")"));
        } else {
            protocol = new Http1Protocol(connectionIds.incrementAndGet(), home, null);
            engine = context.newTlsEngine();
        }
        Channel channel = Channel.accept(socket, loop, home.channelSettings(), engine, protocol, home::remove);
        if (channel.isClosed()) onClosed(); // failed at once: it never joined its loop's set
        else home.add(channel);
    }

    /**
     * A TLS connection past the limit, never handshaken: the lingering close at once (FIN, the ClientHello
     * drained, then the close), so the client reads the end of the stream, never a reset for unread bytes.
     */
    private static final Protocol REFUSED_HANDSHAKE = new Protocol() {
        @Override
        public void onOpen(Channel channel) {
            channel.closeLingering();
        }

        @Override
        public void onInput(Channel channel, ByteBuffer in) {
            in.position(in.limit());
        }
    };

    void onClosed() {
        openConnections.closed();
    }

    ServerContext context() {
        return context;
    }

    @Override
    public InetSocketAddress address() throws IOException {
        return acceptor.localAddress();
    }

    @Override
    public int openConnections() {
        return openConnections.get();
    }

    @Override
    public List<EventLoop> loops() {
        return loops.loops();
    }

    @Override
    public List<LagProbe> lagProbes() {
        return guard == null ? List.of() : guard.probes();
    }

    @Override
    public long blockedLoopEvents() {
        return guard == null ? 0 : guard.blockedEvents();
    }

    @Override
    public long blockedLoopEvents(Route route) {
        return guard == null ? 0 : guard.blockedEvents(route);
    }

    /**
     * Stops accepting, closes idle connections (lingering), lets in-flight exchanges finish for up to
     * {@code grace} (their responses say {@code Connection: close}), then closes what remains.
     */
    @Override
    public void stop(Duration grace) throws IOException {
        context.markStopping();
        acceptor.close();
        onEveryLoop(LoopConnections::closeIdle);
        try {
            openConnections.awaitNone(System.nanoTime() + grace.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (openConnections.get() > 0) LOG.warn("grace_period_over", "connections_closed", openConnections.get());
        onEveryLoop(LoopConnections::closeAll);
        if (guard != null) guard.close();
        shutdownLoops();
    }

    private void onEveryLoop(java.util.function.Consumer<LoopConnections> action) {
        try {
            LoopGroup.runOnEach(loops.loops(), loop -> action.accept(homes.get(loop)), Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void shutdownLoops() {
        try {
            loops.shutdown(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
