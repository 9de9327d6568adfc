package keel.amqp;

import keel.amqp.gateway.GatewayMode;
import keel.amqp.ingest.IngestMode;
import keel.http.server.ConfigKeys.ConfigException;
import keel.http.server.ConfigValues;

import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The configuration reference of the gateway and the ingest pipeline: every {@link AmqpOptions}
 * component with its YAML key and CLI flag, read like the server's own table
 * ({@link keel.http.server.ConfigKeys}) and refused with the same messages.
 */
public final class AmqpConfigKeys {

    /** One option: {@code yaml} is the dotted key ({@code gateway.mode}), {@code flag} the CLI flag. */
    public record Key(String yaml, String flag, String help, Function<AmqpOptions, String> current,
                      BiConsumer<AmqpOptions.Builder, String> setter) {
        public String valueIn(AmqpOptions options) {
            return current.apply(options);
        }
    }

    public static final List<Key> ALL = List.of(
            new Key("amqp.uri", "--amqp-uri", "the RabbitMQ broker (amqp://user:password@host:port/vhost)",
                    o -> o.uri().toString(), (b, v) -> b.uri(v)),
            new Key("amqp.addresses", "--amqp-addresses", "a cluster's nodes, host:port,host:port,... (empty: the node of amqp.uri, whose credentials and vhost hold for all)",
                    o -> ConfigValues.list(o.addresses()), (b, v) -> b.addresses(ConfigValues.list(v))),
            new Key("amqp.queue-type", "--amqp-queue-type", "the queues declared: auto (quorum with more than one address), classic or quorum",
                    o -> o.queueType().word(), (b, v) -> b.queueType(ConfigValues.word(v, QueueType.class))),
            new Key("amqp.recovery-interval", "--amqp-recovery-interval", "how often a lost or refused broker connection is tried again",
                    o -> ConfigValues.duration(o.recoveryInterval()), (b, v) -> b.recoveryInterval(ConfigValues.duration(v))),
            new Key("gateway.mode", "--gateway-mode", "how POST /gateway/publish runs: event-loop, worker-pool, async or virtual-thread",
                    o -> o.gateway().mode().word(), (b, v) -> b.mode(ConfigValues.word(v, GatewayMode.class))),
            new Key("gateway.exchange", "--gateway-exchange", "the exchange messages go to (empty: the default exchange)",
                    o -> o.gateway().exchange(), (b, v) -> b.exchange(v.trim())),
            new Key("gateway.routing-key", "--gateway-routing-key", "the routing key when a request names none (declared as a queue on the default exchange)",
                    o -> o.gateway().routingKey(), (b, v) -> b.routingKey(v.trim())),
            new Key("gateway.confirm-timeout", "--gateway-confirm-timeout", "how long a request waits for the broker's confirm (504 past it)",
                    o -> ConfigValues.duration(o.gateway().confirmTimeout()), (b, v) -> b.confirmTimeout(ConfigValues.duration(v))),
            new Key("gateway.channels", "--gateway-channels", "synchronous modes: channels, each with one unconfirmed message at a time",
                    o -> "" + o.gateway().channels(), (b, v) -> b.channels(ConfigValues.integer(v, 1, 2047))),
            new Key("gateway.publisher-threads", "--gateway-publisher-threads", "async mode: channels, each fed by one publisher thread",
                    o -> "" + o.gateway().publisherThreads(), (b, v) -> b.publisherThreads(ConfigValues.integer(v, 1, 256))),
            new Key("gateway.max-outstanding", "--gateway-max-outstanding", "async mode: messages queued or awaiting a confirm (503 past it)",
                    o -> "" + o.gateway().maxOutstanding(), (b, v) -> b.maxOutstanding(ConfigValues.integer(v, 1, 10_000_000))),
            new Key("ingest.enabled", "--ingest", "run the consumer that stores device events in PostgreSQL: true or false",
                    o -> "" + o.ingest().enabled(), (b, v) -> b.ingestEnabled(ConfigValues.bool(v))),
            new Key("ingest.mode", "--ingest-mode", "sequential (insert, commit, ack, next) or pipelined (batched, bounded in flight)",
                    o -> o.ingest().mode().word(), (b, v) -> b.ingestMode(ConfigValues.word(v, IngestMode.class))),
            new Key("ingest.queue", "--ingest-queue", "the durable queue of device events",
                    o -> o.ingest().queue(), (b, v) -> b.ingestQueue(v.trim())),
            new Key("ingest.prefetch", "--ingest-prefetch", "pipelined: unacknowledged deliveries at once",
                    o -> "" + o.ingest().prefetch(), (b, v) -> b.prefetch(ConfigValues.integer(v, 1, 65_535))),
            new Key("ingest.writers", "--ingest-writers", "pipelined: database connections inserting at once",
                    o -> "" + o.ingest().writers(), (b, v) -> b.writers(ConfigValues.integer(v, 1, 256))),
            new Key("ingest.batch-size", "--ingest-batch-size", "pipelined: rows per insert statement at most",
                    o -> "" + o.ingest().batchSize(), (b, v) -> b.batchSize(ConfigValues.integer(v, 1, 10_000))),
            new Key("database.url", "--database-url", "the PostgreSQL database of the ingest pipeline",
                    o -> o.database().url(), (b, v) -> b.databaseUrl(v.trim())),
            new Key("database.user", "--database-user", "its user",
                    o -> o.database().user(), (b, v) -> b.databaseUser(v.trim())),
            new Key("database.password", "--database-password", "its password",
                    o -> o.database().password(), (b, v) -> b.databasePassword(v)));

    private AmqpConfigKeys() {
    }

    public static Optional<Key> byYaml(String yaml) {
        return ALL.stream().filter(k -> k.yaml().equals(yaml)).findFirst();
    }

    public static Optional<Key> byFlag(String flag) {
        return ALL.stream().filter(k -> k.flag().equals(flag)).findFirst();
    }

    /** Sets {@code key} (named {@code name} in {@code source}), refusing a bad value with a message naming both. */
    public static void apply(AmqpOptions.Builder builder, Key key, String name, String value, String source) {
        try {
            key.setter().accept(builder, value);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("invalid value '" + value + "' for " + name + " in " + source + ": " + e.getMessage());
        }
    }

    public static AmqpOptions build(AmqpOptions.Builder builder) {
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new ConfigException("invalid configuration: " + e.getMessage());
        }
    }
}
