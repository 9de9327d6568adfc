package keel.core.net;

import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.core.loop.LoopGroup;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.RejectedExecutionException;

/**
 * Accepts connections on one platform thread and hands each to one loop of a {@link LoopGroup}, which
 * owns it for life. The hand-off is a task on that loop, so the connection is set up on its own
 * thread.
 */
public final class Acceptor implements AutoCloseable {
    private static final Log LOG = Log.of(Acceptor.class);

    /** Called on the chosen loop's thread with a non-blocking, connected channel. */
    @FunctionalInterface
    public interface ConnectionInitializer {
        void initialize(SocketChannel channel, EventLoop loop);
    }

    private final ServerSocketChannel server;
    private final LoopGroup loops;
    private final ConnectionInitializer initializer;
    private final Runnable onRefused;
    private final Thread thread;

    /**
     * Binds {@code address}. {@code onRefused} runs on the acceptor thread for each connection that no
     * loop could take (its task queue was full, or it stopped): that connection is closed at once,
     * since the acceptor thread must not wait on a lingering close.
     */
    public Acceptor(InetSocketAddress address, int backlog, LoopGroup loops, ConnectionInitializer initializer,
                    Runnable onRefused) throws IOException {
        this.server = ServerSocketChannel.open();
        server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        server.bind(address, backlog);
        this.loops = loops;
        this.initializer = initializer;
        this.onRefused = onRefused;
        this.thread = Thread.ofPlatform().name("keel-acceptor").daemon(false).unstarted(this::acceptLoop);
    }

    public void start() {
        thread.start();
    }

    public InetSocketAddress localAddress() throws IOException {
        return (InetSocketAddress) server.getLocalAddress();
    }

    private void acceptLoop() {
        while (server.isOpen()) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (AsynchronousCloseException closed) {
                return;
            } catch (IOException e) {
                LOG.warn("accept_failed", "cause", e);
                pauseAfterAcceptFailure();
                continue;
            }
            handOff(channel);
        }
    }

    private void handOff(SocketChannel channel) {
        EventLoop loop = loops.next();
        try {
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            loop.execute(() -> initializer.initialize(channel, loop));
        } catch (IOException | RejectedExecutionException e) {
            LOG.warn("connection_handoff_failed", "loop", loop.name(), "cause", e);
            closeQuietly(channel);
            if (e instanceof RejectedExecutionException) onRefused.run();
        }
    }

    /** Running out of file descriptors makes accept fail at once; do not spin on it. */
    private static void pauseAfterAcceptFailure() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("close_failed", "cause", e);
        }
    }

    /** Stops accepting; connections already handed off are not touched. */
    @Override
    public void close() throws IOException {
        server.close();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
