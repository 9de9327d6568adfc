package keel.http.server.blocking;

import keel.core.log.Log;
import keel.http.Response;
import keel.http.Rejection;
import keel.http.server.exchange.Listener;
import keel.http.server.exchange.ServerContext;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The blocking transport: a thread per connection, from a bounded pool of platform threads (with a
 * bounded queue of accepted connections) or a virtual thread each. It shares the parser, router,
 * dispatcher and writer with the nio transport; the handler runs on the connection's thread.
 */
public final class BlockingServer implements Listener {
    private static final Log LOG = Log.of(BlockingServer.class);

    private final ServerContext context;
    private final ServerContext.Settings settings;
    private final ServerSocket server;
    private final ExecutorService threads;
    private final Thread acceptor;
    private final Thread writeWatchdog;
    private final long watchdogPeriodMillis;
    private final Set<BlockingConnection> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger openConnections = new AtomicInteger();
    private final AtomicLong connectionIds = new AtomicLong();

    /** Serves each connection on a thread of {@code threads}, which refuses one past its bound and stops with the server. */
    public BlockingServer(ServerContext context, ExecutorService threads) throws IOException {
        this.context = context;
        this.settings = context.settings();
        this.threads = threads;
        this.server = new ServerSocket();
        server.setReuseAddress(true);
        this.acceptor = Thread.ofPlatform().name("keel-acceptor").unstarted(this::acceptLoop);
        long stallMillis = settings.timeouts().writeStall().toMillis();
        this.watchdogPeriodMillis = Math.clamp(stallMillis / 4, 5, 1000);
        this.writeWatchdog = Thread.ofPlatform().name("keel-write-watchdog").daemon(true).start(this::watchWrites);
    }

    @Override
    public void open() throws IOException {
        try {
            server.bind(settings.address(), settings.backlog());
        } catch (IOException e) {
            context.markStopping(); // ends the write watchdog
            threads.shutdown();
            throw e;
        }
        acceptor.start();
    }

    /**
     * Java sockets have no write timeout: this thread closes connections whose write made no progress
     * for the write-stall timeout, and TLS handshakes that outlive their timeout.
     */
    private void watchWrites() {
        while (!context.isStopping()) {
            try {
                Thread.sleep(watchdogPeriodMillis);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (BlockingConnection connection : open) connection.abortIfStalled(now);
        }
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            Socket socket;
            try {
                socket = server.accept();
            } catch (IOException e) {
                if (server.isClosed()) return;
                // Out of file descriptors fails at once: pause instead of spinning on it.
                LOG.warn("accept_failed", "cause", e);
                try {
                    Thread.sleep(10);
                } catch (InterruptedException interrupted) {
                    return;
                }
                continue;
            }
            handOff(socket);
        }
    }

    private void handOff(Socket socket) {
        BlockingConnection connection = new BlockingConnection(connectionIds.incrementAndGet(), socket, context, this::onClosed);
        if (openConnections.incrementAndGet() > settings.maxConnections()) {
            refuseOnNewThread(connection, context.overConnectionLimit());
            return;
        }
        open.add(connection);
        try {
            threads.execute(connection::serve);
        } catch (RejectedExecutionException full) {
            open.remove(connection);
            refuseOnNewThread(connection, context.dispatcher().refusal(Rejection.BLOCKING_THREADS_BUSY, "all connection threads are busy"));
        }
    }

    /** The refusal lingers up to the drain time, so it runs off the acceptor thread. */
    private void refuseOnNewThread(BlockingConnection connection, Response refusal) {
        Thread.ofVirtual().name("keel-refuse").start(() -> connection.refuse(refusal));
    }

    void onClosed(BlockingConnection connection) {
        open.remove(connection);
        openConnections.decrementAndGet();
    }

    @Override
    public InetSocketAddress address() {
        return (InetSocketAddress) server.getLocalSocketAddress();
    }

    @Override
    public int openConnections() {
        return openConnections.get();
    }

    /** Like the nio transport: stop accepting, end idle connections, give busy ones {@code grace}, then close. */
    @Override
    public void stop(Duration grace) throws IOException {
        context.markStopping();
        server.close();
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (BlockingConnection connection : open) connection.closeIfIdle();
        long deadline = System.nanoTime() + grace.toNanos();
        // A thread parked in read keeps the timeout it started with: past the drain time, end idle ones.
        long lingerDeadline = System.nanoTime() + Math.min(grace.toNanos(), settings.timeouts().lingerDrain().toNanos());
        boolean idleAborted = false;
        while (!open.isEmpty() && System.nanoTime() - deadline < 0) {
            if (!idleAborted && System.nanoTime() - lingerDeadline > 0) {
                for (BlockingConnection connection : open) connection.abortIfIdle();
                idleAborted = true;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!open.isEmpty()) LOG.warn("grace_period_over", "connections_closed", open.size());
        writeWatchdog.interrupt();
        for (BlockingConnection connection : open) connection.closeTcp();
        threads.shutdownNow();
        try {
            if (!threads.awaitTermination(2, TimeUnit.SECONDS)) LOG.warn("connection_threads_still_running");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
