package keel.amqp.gateway;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import keel.amqp.AmqpOptions;
import keel.amqp.BrokerConnection;
import keel.http.HttpStatusException;
import keel.http.Request;
import keel.http.Response;
import keel.http.router.Router;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * {@code POST /gateway/publish}: publishes the request body to RabbitMQ and answers 202 once the
 * broker confirmed it, in the {@link GatewayMode} of the options. It connects in the background, so
 * a server with a gateway starts (and answers 503) while the broker is away. What becomes of each
 * message, and why a request was refused, goes to its {@link GatewayObserver}.
 *
 * <pre>{@code
 * Gateway gateway = Gateway.start(AmqpOptions.builder().mode(GatewayMode.ASYNC).build(),
 *         new GatewayMetrics(metrics.registry()));
 * gateway.register(router);          // before the server starts
 * }</pre>
 */
public final class Gateway implements AutoCloseable {
    public static final String PATH = "/gateway/publish";

    private final AmqpOptions options;
    private final BrokerConnection broker;
    private final SyncPublisher sync;
    private final AsyncPublisher async;
    private final GatewayObserver observer;

    private Gateway(AmqpOptions options, GatewayObserver observer) {
        this.options = options;
        this.observer = observer;
        this.broker = BrokerConnection.create("keel-gateway", options, this::declare);
        boolean isAsync = options.gateway().mode() == GatewayMode.ASYNC;
        this.sync = isAsync ? null : new SyncPublisher(broker, options.gateway());
        this.async = isAsync ? new AsyncPublisher(broker, options.gateway(), observer) : null;
    }

    public static Gateway start(AmqpOptions options) {
        return start(options, GatewayObserver.NONE);
    }

    /** A gateway reporting to {@code observer}; it hears {@link GatewayObserver#onStart} before the broker connection starts. */
    public static Gateway start(AmqpOptions options, GatewayObserver observer) {
        return create(options, observer).connect();
    }

    /**
     * Like {@link #start(AmqpOptions, GatewayObserver)} without connecting yet: register the route,
     * open the server's port, then {@link #connect}, so the broker client's set-up does not delay
     * the port. Until then the route answers 503 ("not connected yet").
     */
    public static Gateway create(AmqpOptions options, GatewayObserver observer) {
        Gateway gateway = new Gateway(options, java.util.Objects.requireNonNull(observer, "observer"));
        observer.onStart(gateway);
        return gateway;
    }

    /** Starts connecting to the broker in the background and returns at once; once per gateway. */
    public Gateway connect() {
        broker.connect();
        return this;
    }

    /**
     * On the first connection: with the default exchange, the default routing key names a queue;
     * declare it (durable, of {@code amqp.queue-type}) so a message published without a key has somewhere to go. The channel
     * stays open, so recovery declares the queue again on a new broker. Then the async lanes open
     * their channels.
     */
    private void declare(Connection connection) {
        try {
            if (options.gateway().exchange().isEmpty()) {
                Channel topology = connection.createChannel();
                topology.queueDeclare(options.gateway().routingKey(), true, false, false, options.queueArguments());
            }
            if (async != null) async.openChannels(connection);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Adds {@code POST /gateway/publish} under the execution of the configured mode. */
    public Router register(Router router) {
        GatewayMode mode = options.gateway().mode();
        Router routes = router.with(mode.execution());
        return mode == GatewayMode.ASYNC ? routes.postAsync(PATH, this::publishAsync) : routes.post(PATH, this::publish);
    }

    /** V1, V2, V4: blocks the calling thread until the confirm, a failure or the timeout. */
    Response publish(Request request) {
        Message message;
        try {
            message = Message.from(request, options.gateway().routingKey());
        } catch (HttpStatusException bad) {
            return Outcome.of(bad).toResponse();
        }
        Outcome outcome = sync.publish(message);
        outcome.reportTo(observer);
        return outcome.toResponse();
    }

    /** V3: returns at once; the confirm listener completes the stage. */
    CompletionStage<Response> publishAsync(Request request) {
        try {
            return async.publish(Message.from(request, options.gateway().routingKey()));
        } catch (HttpStatusException bad) {
            return CompletableFuture.completedFuture(Outcome.of(bad).toResponse());
        }
    }

    public BrokerConnection broker() {
        return broker;
    }

    /**
     * Messages admitted and not answered yet: in async mode queued or awaiting a confirm (bounded by
     * {@code gateway.max-outstanding}); in the synchronous modes waiting for a channel, being
     * published or awaiting their confirm.
     */
    public int outstanding() {
        return async == null ? sync.inFlight() : async.outstanding();
    }

    public GatewayMode mode() {
        return options.gateway().mode();
    }

    @Override
    public void close() {
        if (async != null) async.close();
        if (sync != null) sync.close();
        broker.close();
    }
}
