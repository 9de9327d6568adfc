package keel.core.loop;

import java.io.IOException;
import java.nio.channels.SelectableChannel;
import java.util.List;
import java.util.function.Consumer;

/**
 * What an {@link EventLoop} waits on: the channels registered with their interest, and a way to be
 * woken. The JDK {@link java.nio.channels.Selector} is the portable implementation
 * ({@link SelectorPoller}); a Linux epoll or io_uring poller through the FFM API plugs in here, behind
 * {@link EventLoop.Options#poller}, without any protocol noticing. Nothing outside a poller sees its
 * own handles (a {@code SelectionKey}, a file descriptor): the loop and the channels hold
 * {@link Registration}s.
 *
 * <p>Thread contract: {@link #wakeup} from any thread; everything else on the loop thread only.
 */
public interface Poller extends AutoCloseable {
    /** Interest and readiness bits (the same values as {@link java.nio.channels.SelectionKey}'s, so the JDK poller maps nothing). */
    int READ = 1;
    int WRITE = 4;
    int CONNECT = 8;

    /** Makes a poller; an {@link EventLoop} makes its own on its constructing thread. */
    @FunctionalInterface
    interface Factory {
        Poller open() throws IOException;
    }

    /** A channel registered with a poller, with the handler its readiness goes to. Loop thread only. */
    interface Registration {
        /** The operations to wait for now (a mix of {@link #READ}, {@link #WRITE}, {@link #CONNECT}; 0 for none). */
        void interest(int ops);

        int interest();

        /** The operations the last poll found ready, still wanted by the interest set; 0 once cancelled. */
        int readyOps();

        IoHandler handler();

        /** Stops polling the channel (idempotent); the channel itself stays open. */
        void cancel();

        boolean isValid();

        /** Cancels and closes the channel (the loop does this to a handler that threw, and at shutdown). */
        void close();
    }

    Registration register(SelectableChannel channel, int interest, IoHandler handler) throws IOException;

    /**
     * Hands each registration with ready operations to {@code ready}, once. Blocks up to
     * {@code timeoutNanos} for the first: 0 returns at once, a negative value waits until a channel is
     * ready or {@link #wakeup} is called.
     */
    void poll(long timeoutNanos, Consumer<Registration> ready) throws IOException;

    /** Ends a blocked (or the next) {@link #poll} early; any thread. */
    void wakeup();

    /** The registrations still polled (a snapshot; for a stopping loop). */
    List<Registration> registrations();

    /** Registered channels (a gauge; any thread, approximate). */
    int size();

    @Override
    void close() throws IOException;
}
