package keel.core.loop;

import keel.core.log.Log;

import java.io.IOException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** The portable {@link Poller}: one JDK {@link Selector}. Its {@link SelectionKey}s never leave this file. */
public final class SelectorPoller implements Poller {
    private static final Log LOG = Log.of(SelectorPoller.class);

    private final Selector selector;
    private Consumer<Registration> sink;
    /** Made once: a lambda evaluated on every poll would allocate on every turn. */
    private final Consumer<SelectionKey> toSink = key -> sink.accept((Registration) key.attachment());

    private SelectorPoller(Selector selector) {
        this.selector = selector;
    }

    public static Poller open() throws IOException {
        return new SelectorPoller(Selector.open());
    }

    @Override
    public Registration register(SelectableChannel channel, int interest, IoHandler handler) throws IOException {
        KeyRegistration registration = new KeyRegistration(handler);
        registration.interest = interest;
        registration.key = channel.register(selector, interest, registration);
        return registration;
    }

    @Override
    public void poll(long timeoutNanos, Consumer<Registration> ready) throws IOException {
        sink = ready;
        try {
            if (timeoutNanos == 0) selector.selectNow(toSink);
            else if (timeoutNanos < 0) selector.select(toSink, 0);
            else selector.select(toSink, Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos + 999_999)));
        } finally {
            sink = null;
        }
    }

    @Override
    public void wakeup() {
        selector.wakeup();
    }

    @Override
    public List<Registration> registrations() {
        List<Registration> all = new ArrayList<>();
        for (SelectionKey key : selector.keys()) {
            if (key.attachment() instanceof Registration registration) all.add(registration);
        }
        return all;
    }

    @Override
    public int size() {
        return selector.isOpen() ? selector.keys().size() : 0;
    }

    @Override
    public void close() throws IOException {
        selector.close();
    }

    private static final class KeyRegistration implements Registration {
        private final IoHandler handler;
        private SelectionKey key;
        private int interest;

        KeyRegistration(IoHandler handler) {
            this.handler = handler;
        }

        @Override
        public void interest(int ops) {
            if (ops == interest) return;
            try {
                key.interestOps(ops);
                interest = ops;
            } catch (CancelledKeyException closed) {
                // closed meanwhile (from another thread, under overload): nothing to wait for
            }
        }

        @Override
        public int interest() {
            return interest;
        }

        @Override
        public int readyOps() {
            try {
                return key.readyOps() & interest;
            } catch (CancelledKeyException closed) {
                return 0;
            }
        }

        @Override
        public IoHandler handler() {
            return handler;
        }

        @Override
        public void cancel() {
            key.cancel();
        }

        @Override
        public boolean isValid() {
            return key.isValid();
        }

        @Override
        public void close() {
            key.cancel();
            try {
                key.channel().close();
            } catch (IOException e) {
                LOG.debug("channel_close_failed", "cause", e);
            }
        }
    }
}
