package keel.http.server.nio;

import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.core.loop.LoopGroup;
import keel.core.net.Acceptor;
import keel.core.net.Channel;
import keel.core.net.Protocol;
import keel.http.Response;
import keel.http.server.exchange.ExchangeObserver;
import keel.http.server.exchange.Listener;
import keel.http.server.exchange.ServerContext;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLEngine;

/** The nio transport: an acceptor thread and a group of event loops that own the connections. */
public final class NioServer implements Listener {
    private static final Log LOG = Log.of(NioServer.class);

    private final ServerContext context;
    private final ServerContext.Settings settings;
    private final LoopGroup loops;
    private final Map<EventLoop, LoopConnections> homes = new IdentityHashMap<>();
    private final OpenCount openConnections = new OpenCount();
    private final AtomicLong connectionIds = new AtomicLong();
    private Acceptor acceptor;

    /** Serves on {@code loops}, stopped by whoever made them; {@code warm}: each fills its buffer pool now. */
    public NioServer(ServerContext context, LoopGroup loops, boolean warm) {
        this.context = context;
        this.settings = context.settings();
        this.loops = loops;
        if (settings.nativeIo()) Channel.prepareNativeIo(); // here, not on the first connection's loop
        for (EventLoop loop : loops.loops()) {
            LoopConnections home = new LoopConnections(loop, this);
            homes.put(loop, home);
            loop.execute(home::startSweeping);
        }
        if (warm) onEveryLoop(LoopConnections::prepare);
    }

    @Override
    public void open() throws IOException {
        acceptor = new Acceptor(settings.address(), settings.backlog(), loops, this::initialize,
                () -> context.observer().onCut(ExchangeObserver.Cut.HANDOFF_REFUSED));
        acceptor.start();
    }

    /** On the chosen loop's thread: sets up the connection, or refuses it past the connection limit. */
    private void initialize(SocketChannel socket, EventLoop loop) {
        InetSocketAddress remote, local;
        try {
            remote = (InetSocketAddress) socket.getRemoteAddress();
            local = (InetSocketAddress) socket.getLocalAddress();
        } catch (IOException closed) {
            return; // only a closed socket throws: nothing to serve
        }
        LoopConnections home = homes.get(loop);
        Response refusal = null;
        if (openConnections.opened() > settings.maxConnections()) {
            refusal = context.overConnectionLimit();
            LOG.debug("connection_refused", "reason", "max_connections", "limit", settings.maxConnections());
        }
        // Over TLS a 503 needs a handshake first: the work an overloaded server refuses.
        Protocol protocol = refusal != null && context.tls() != null ? REFUSED_HANDSHAKE
                : new Http1Protocol(connectionIds.incrementAndGet(), home, refusal, remote, local);
        SSLEngine engine = refusal == null && context.tls() != null ? context.tls().newServerEngine() : null;
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

    /**
     * Stops accepting, closes idle connections (lingering), lets in-flight exchanges finish for up to
     * {@code grace} (their responses say {@code Connection: close}), then closes what remains; the
     * loops go on until their owner stops them.
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
    }

    private void onEveryLoop(java.util.function.Consumer<LoopConnections> action) {
        try {
            LoopGroup.runOnEach(loops.loops(), loop -> action.accept(homes.get(loop)), Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
