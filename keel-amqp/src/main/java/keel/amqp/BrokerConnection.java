package keel.amqp;

import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ShutdownSignalException;
import keel.core.log.Log;
import keel.http.config.ConfigValues;
import keel.http.server.AdminRoutes;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One connection to the broker that keeps itself up: the first connection is tried in the
 * background until it succeeds (so a server starts without a broker), and a lost one is recovered by
 * the client's automatic recovery, channels, queues and consumers included, every
 * {@code amqp.recovery-interval}. With a cluster's addresses ({@code amqp.addresses}) the client
 * tries them in a shuffled order, the first time and at each recovery, and the first recovery
 * starts at once, so a connection whose node died moves to a live one without waiting. Its
 * {@link State} is what {@code /keel/health} shows and what the routes check before they touch the
 * broker.
 *
 * <p>Thread contract: the state is written by the client's connection threads and read by any.
 */
public final class BrokerConnection implements HealthCheck, AutoCloseable {
    private static final Log LOG = Log.of(BrokerConnection.class);
    /**
     * How often a broker still unreachable for the same reason is warned about again: the tries in
     * between (one every {@code amqp.recovery-interval}) are logged at debug level, so a server started
     * without its broker does not write a warning a second.
     */
    private static final long WARN_AGAIN_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** The connection as the application sees it. */
    public enum State {
        /** Not connected yet; the first attempt is under way. */
        CONNECTING,
        /** Connected: messages can be published and consumed. */
        UP,
        /** Connected, but the broker stopped reading publishes (a memory or disk alarm). */
        BLOCKED,
        /** Not connected: the last attempt failed or the connection was lost; retrying. */
        DOWN,
        /** Closed by the application. */
        CLOSED;

        public String word() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private record Status(State state, Instant since, String error) {
    }

    private final String name;
    private final AmqpOptions options;
    private final ConnectionFactory factory;
    private final Consumer<Connection> onFirstConnect;
    private final CountDownLatch firstConnect = new CountDownLatch(1);
    private final Thread connector;
    private volatile Status status = new Status(State.CONNECTING, Instant.now(), null);
    private volatile Connection connection;

    private BrokerConnection(String name, AmqpOptions options, Consumer<Connection> onFirstConnect) {
        this.name = name;
        this.options = options;
        this.onFirstConnect = onFirstConnect;
        this.factory = factory(options);
        this.connector = Thread.ofPlatform().name(name + "-connect").daemon(true).unstarted(this::connectUntilUp);
    }

    /**
     * A connection that {@link #connect} starts. {@code onFirstConnect} runs once, on the connecting
     * thread, when the first connection is made and before the state is {@code UP} (declare queues,
     * open channels); recovery repeats what it declared. If it throws, the connection is dropped and
     * tried again.
     */
    public static BrokerConnection create(String name, AmqpOptions options, Consumer<Connection> onFirstConnect) {
        return new BrokerConnection(name, options, onFirstConnect);
    }

    /** Starts connecting in the background and returns at once. */
    public BrokerConnection connect() {
        connector.start();
        return this;
    }

    /**
     * A plain connection to any live node of {@code options} (no recovery), for a short job such as
     * loading events; the caller closes it.
     */
    public static Connection open(AmqpOptions options, String name) throws IOException, java.util.concurrent.TimeoutException {
        ConnectionFactory factory = factory(options);
        factory.setAutomaticRecoveryEnabled(false);
        return factory.newConnection(options.nodes(), name);
    }

    private static ConnectionFactory factory(AmqpOptions options) {
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(options.uri());
        } catch (Exception e) {
            throw new IllegalArgumentException("amqp.uri: " + e.getMessage(), e);
        }
        factory.setAutomaticRecoveryEnabled(true);
        factory.setTopologyRecoveryEnabled(true);
        // On a cluster, a lost connection is tried again at once, then every recovery interval: a node
        // that died refuses at once and the other addresses are tried in the same attempt, so the
        // connection moves to a live node without first waiting out the interval. A single broker
        // that dropped the connection gets the interval before the first try.
        long interval = options.recoveryInterval().toMillis();
        boolean cluster = options.nodes().size() > 1;
        factory.setRecoveryDelayHandler(failedAttempts -> failedAttempts == 0 && cluster ? 0 : interval);
        factory.setConnectionTimeout(2_000);
        factory.setHandshakeTimeout(5_000);
        factory.setRequestedHeartbeat(10); // a silent broker is noticed within ~20 s, not the default 2 min
        // A channel RPC (open, declare, confirm.select) against a stalled broker must not hang a thread
        // for the default 10 min: give it the time a publish gets for its confirm.
        factory.setChannelRpcTimeout((int) Math.max(1_000, options.gateway().confirmTimeout().toMillis()));
        factory.setShutdownTimeout(2_000);
        return factory;
    }

    private void connectUntilUp() {
        String warnedCause = null;
        long warnedAt = 0;
        int tries = 0;
        while (status.state() != State.CLOSED) {
            Connection opened = null;
            try {
                opened = factory.newConnection(options.nodes(), name);
                watch(opened);
                onFirstConnect.accept(opened);
                connection = opened;
                if (status.state() == State.CLOSED) {
                    // close() ran while this connection was being made: it may not have seen it.
                    opened.abort(1_000);
                    return;
                }
                moveTo(opened.isOpen() ? State.UP : State.DOWN, null);
                LOG.info("broker_connected", "name", name, "broker", options.brokerAddress(), "node", node(opened));
                firstConnect.countDown();
                return;
            } catch (Exception e) {
                String cause = describe(e);
                moveTo(State.DOWN, cause);
                tries++;
                long now = System.nanoTime();
                Object[] fields = {"name", name, "broker", options.brokerAddress(), "cause", cause,
                        "retry_in", ConfigValues.duration(options.recoveryInterval()), "tries", tries};
                if (!cause.equals(warnedCause) || now - warnedAt >= WARN_AGAIN_NANOS) {
                    LOG.warn("broker_unreachable", fields);
                    warnedCause = cause;
                    warnedAt = now;
                } else {
                    LOG.debug("broker_unreachable", fields);
                }
                if (opened != null) opened.abort(1_000);
                if (!pause(options.recoveryInterval())) return;
            }
        }
    }

    private void watch(Connection opened) {
        opened.addShutdownListener(cause -> {
            if (status.state() == State.CLOSED || cause.isInitiatedByApplication()) return;
            moveTo(State.DOWN, describe(cause));
            LOG.warn("broker_connection_lost", "name", name, "cause", describe(cause));
        });
        opened.addBlockedListener(new BlockedListener() {
            @Override
            public void handleBlocked(String reason) {
                moveTo(State.BLOCKED, "the broker blocked publishing: " + reason);
                LOG.warn("broker_blocked", "name", name, "reason", reason);
            }

            @Override
            public void handleUnblocked() {
                if (status.state() == State.BLOCKED) moveTo(State.UP, null);
                LOG.info("broker_unblocked", "name", name);
            }
        });
        ((Recoverable) opened).addRecoveryListener(new RecoveryListener() {
            @Override
            public void handleRecovery(Recoverable recovered) {
                moveTo(State.UP, null);
                LOG.info("broker_recovered", "name", name, "node", node(opened));
            }

            @Override
            public void handleRecoveryStarted(Recoverable recoverable) {
                LOG.info("broker_recovery_started", "name", name);
            }
        });
    }

    private synchronized void moveTo(State state, String error) {
        if (status.state() == State.CLOSED) return;
        if (status.state() != state || error != null) status = new Status(state, Instant.now(), error);
    }

    private boolean pause(Duration interval) {
        try {
            Thread.sleep(interval);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static String describe(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getMessage() == null) cause = cause.getCause();
        if (cause instanceof ShutdownSignalException signal && signal.getReason() != null) {
            return signal.getReason().protocolMethodName() + " " + signal.getMessage();
        }
        String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    public State state() {
        return status.state();
    }

    /** The node the connection is on now, {@code host:port} (after a recovery, the node it moved to); empty while down. */
    public Optional<String> node() {
        Connection live = connection;
        return live == null || !live.isOpen() ? Optional.empty() : Optional.of(node(live));
    }

    private static String node(Connection connection) {
        return connection.getAddress().getHostAddress() + ":" + connection.getPort();
    }

    /** Why messages cannot be published now, or empty when the connection is up. */
    public Optional<String> unavailable() {
        Status now = status;
        return switch (now.state()) {
            case UP -> Optional.empty();
            case CONNECTING -> Optional.of("broker " + options.brokerAddress() + " not connected yet");
            case BLOCKED -> Optional.of("broker " + options.brokerAddress() + " is blocking publishers (resource alarm)");
            case DOWN -> Optional.of("broker " + options.brokerAddress() + " unreachable (" + now.error() + "); reconnecting every "
                    + ConfigValues.duration(options.recoveryInterval()));
            case CLOSED -> Optional.of("gateway is stopping");
        };
    }

    /** The live connection once the first connect succeeded; recovery keeps this object valid. */
    public Optional<Connection> connection() {
        return Optional.ofNullable(connection);
    }

    /** Opens a channel on the live connection; the client re-opens it after a recovery. */
    public Channel openChannel() throws IOException {
        Connection live = connection;
        if (live == null) throw new IOException(unavailable().orElse("broker not connected"));
        return live.createChannel();
    }

    /** Waits up to {@code timeout} for the first connection; true when it is up. */
    public boolean awaitConnected(Duration timeout) throws InterruptedException {
        return firstConnect.await(timeout.toMillis(), TimeUnit.MILLISECONDS) && status.state() == State.UP;
    }

    @Override
    public String name() {
        return "broker";
    }

    @Override
    public boolean isUp() {
        return status.state() == State.UP;
    }

    @Override
    public String json() {
        Status now = status;
        return "{\"state\":\"" + now.state().word() + "\",\"address\":" + AdminRoutes.quote(options.brokerAddress())
                + node().map(node -> ",\"node\":" + AdminRoutes.quote(node)).orElse("")
                + ",\"connection\":" + AdminRoutes.quote(name) + ",\"since\":\"" + now.since() + "\""
                + (now.error() == null ? "" : ",\"error\":" + AdminRoutes.quote(now.error())) + "}";
    }

    @Override
    public void close() {
        synchronized (this) {
            status = new Status(State.CLOSED, Instant.now(), null);
        }
        connector.interrupt();
        Connection live = connection;
        if (live != null) {
            try {
                live.close(2_000);
            } catch (IOException | RuntimeException e) {
                LOG.warn("broker_close_failed", "name", name, "cause", describe(e));
            }
        }
    }
}
