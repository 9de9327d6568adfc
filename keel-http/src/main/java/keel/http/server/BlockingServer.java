package keel.http.server;

import keel.core.log.Log;
import keel.http.execution.Rejection;
import keel.http.execution.Responses;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The blocking transport: a thread per connection, from a bounded pool of platform threads (with a
 * bounded queue of accepted connections) or a virtual thread each. It shares the parser, router,
 * dispatcher and writer with the nio transport; the handler runs on the connection's thread.
 */
final class BlockingServer implements HttpServer.Listener {
    private static final Log LOG = Log.of(BlockingServer.class);

    private final ServerContext context;
    private final ServerOptions options;
    private final ServerSocket server;
    private final ExecutorService threads;
    private final Thread acceptor;
    private final Thread writeWatchdog;
    private final long watchdogPeriodMillis;
    private final Set<BlockingConnection> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger openConnections = new AtomicInteger();
    private final AtomicLong connectionIds = new AtomicLong();

    BlockingServer(ServerContext context) throws IOException {
        this.context = context;
        this.options = context.options();
        this.threads = switch (options.threads()) {
            case PLATFORM -> new ThreadPoolExecutor(options.pools().blockingThreads(), options.pools().blockingThreads(),
                    60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(options.pools().blockingQueue()),
                    platformThreads("keel-conn-"), new ThreadPoolExecutor.AbortPolicy());
            case VIRTUAL -> Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("keel-conn-vt-", 0).factory());
        };
        this.server = new ServerSocket();
        server.setReuseAddress(true);
        this.acceptor = Thread.ofPlatform().name("keel-acceptor").unstarted(this::acceptLoop);
        long stallMillis = options.timeouts().writeStall().toMillis();
        this.watchdogPeriodMillis = Math.clamp(stallMillis / 4, 5, 1000);
        this.writeWatchdog = Thread.ofPlatform().name("keel-write-watchdog").daemon(true).start(this::watchWrites);
    }

    /** Binds and starts accepting: the last step of a start. */
    @Override
    public void open() throws IOException {
        try {
            server.bind(new InetSocketAddress(options.host(), options.port()), options.limits().backlog());
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
        if (openConnections.incrementAndGet() > options.limits().maxConnections()) {
            context.observer().onRejected(Rejection.CONNECTION_LIMIT);
            refuseOnNewThread(connection, "connection limit reached (" + options.limits().maxConnections() + ")");
            return;
        }
        open.add(connection);
        try {
            threads.execute(connection::serve);
        } catch (RejectedExecutionException full) {
            open.remove(connection);
            context.observer().onRejected(Rejection.BLOCKING_THREADS_BUSY);
            refuseOnNewThread(connection, "all connection threads are busy");
        }
    }

    /** The refusal lingers up to the drain time, so it runs off the acceptor thread. */
    private void refuseOnNewThread(BlockingConnection connection, String reason) {
        Thread.ofVirtual().name("keel-refuse").start(() -> connection.refuse(Responses.overloaded(reason)));
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
        long lingerDeadline = System.nanoTime() + Math.min(grace.toNanos(), options.timeouts().lingerDrain().toNanos());
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
        for (BlockingConnection connection : open) connection.abort();
        threads.shutdownNow();
        try {
            if (!threads.awaitTermination(2, TimeUnit.SECONDS)) LOG.warn("connection_threads_still_running");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Daemon platform threads, named {@code prefix} and a number. */
    private static ThreadFactory platformThreads(String prefix) {
        AtomicInteger counter = new AtomicInteger();
        return task -> Thread.ofPlatform().name(prefix + counter.getAndIncrement()).daemon(true).unstarted(task);
    }
}
