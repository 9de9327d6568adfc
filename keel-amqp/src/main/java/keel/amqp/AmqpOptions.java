package keel.amqp;

import static keel.http.config.ConfigValues.positive;

import keel.amqp.gateway.GatewayMode;
import keel.amqp.ingest.IngestMode;
import keel.http.config.ConfigValues;
import keel.http.config.Knob;
import keel.http.config.Knob.As;
import keel.http.config.KnobBuilder;
import keel.http.config.KnobTable;

import com.rabbitmq.client.Address;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Every knob of the RabbitMQ gateway and the ingest pipeline, immutable. Each component declares its
 * YAML key, CLI flag, default and meaning with {@link Knob}; {@link #KNOBS} reads them for the
 * {@link Builder}, {@code keel.yaml}, the flags, {@code --help} and the reference table.
 */
public record AmqpOptions(
        @Knob(key = "amqp.uri", flag = "--amqp-uri", value = "amqp://guest:guest@127.0.0.1:5672",
                doc = "the RabbitMQ broker of the gateway and the ingest pipeline (`amqp://user:password@host:port/vhost`)")
        URI uri,
        @Knob(key = "amqp.addresses", flag = "--amqp-addresses", value = "", as = As.HOST_PORTS,
                doc = "a cluster's nodes, `host:port,host:port,...`; `amqp.uri` then gives only the credentials and virtual host (empty: the node of `amqp.uri`)")
        List<String> addresses,
        @Knob(key = "amqp.queue-type", flag = "--amqp-queue-type", value = "auto",
                doc = "the queues declared: `classic`, `quorum`, or `auto` (quorum with more than one address)")
        QueueType queueType,
        @Knob(key = "amqp.recovery-interval", flag = "--amqp-recovery-interval", value = "1s",
                doc = "how often a refused or lost broker connection is tried again")
        Duration recoveryInterval,
        Gateway gateway, Ingest ingest, Database database) {

    /** The knobs of these options, read from the declarations. */
    public static final KnobTable<AmqpOptions> KNOBS = KnobTable.of(AmqpOptions.class, v -> new AmqpOptions(v.get("amqp.uri"),
            v.get("amqp.addresses"), v.get("amqp.queue-type"), v.get("amqp.recovery-interval"),
            new Gateway(v.get("gateway.mode"), v.get("gateway.exchange"), v.get("gateway.routing-key"), v.get("gateway.confirm-timeout"),
                    v.get("gateway.channels"), v.get("gateway.publisher-threads"), v.get("gateway.max-outstanding")),
            new Ingest(v.get("ingest.enabled"), v.get("ingest.mode"), v.get("ingest.queue"), v.get("ingest.prefetch"),
                    v.get("ingest.writers"), v.get("ingest.batch-size"), v.get("ingest.stop-timeout")),
            new Database(v.get("database.url"), v.get("database.user"), v.get("database.password"))));

    public AmqpOptions {
        Objects.requireNonNull(uri, "amqp.uri");
        if (!"amqp".equals(uri.getScheme()) && !"amqps".equals(uri.getScheme())) {
            throw new IllegalArgumentException("amqp.uri must start with amqp:// or amqps://: " + uri);
        }
        addresses = addresses.stream().map(String::strip).toList();
        try {
            addresses.forEach(ConfigValues::hostPort);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("amqp.addresses: " + e.getMessage());
        }
        Objects.requireNonNull(queueType, "amqp.queue-type");
        positive("amqp.recovery-interval", recoveryInterval);
        Objects.requireNonNull(gateway, "gateway");
        Objects.requireNonNull(ingest, "ingest");
        Objects.requireNonNull(database, "database");
    }

    /** {@code POST /gateway/publish}. */
    public record Gateway(
            @Knob(key = "gateway.mode", flag = "--gateway-mode", value = "async",
                    doc = "how `POST /gateway/publish` runs: `event-loop` (V1), `worker-pool` (V2), `async` (V3), `virtual-thread` (V4)")
            GatewayMode mode,
            @Knob(key = "gateway.exchange", flag = "--gateway-exchange", value = "",
                    doc = "the exchange messages go to (empty: the default exchange)")
            String exchange,
            @Knob(key = "gateway.routing-key", flag = "--gateway-routing-key", value = "keel.gateway",
                    doc = "the routing key when a request names none; on the default exchange, a durable queue of that name is declared")
            String routingKey,
            @Knob(key = "gateway.confirm-timeout", flag = "--gateway-confirm-timeout", value = "5s",
                    doc = "how long a request waits for the broker's confirm (504 past it); also bounds channel RPCs")
            Duration confirmTimeout,
            @Knob(key = "gateway.channels", flag = "--gateway-channels", value = "128", min = 1, max = 2047,
                    doc = "V1, V2, V4: channels, each lent to one request at a time (503 when none frees up within the confirm timeout)")
            int channels,
            @Knob(key = "gateway.publisher-threads", flag = "--gateway-publisher-threads", value = "2", min = 1, max = 256,
                    doc = "V3: channels, each fed by one publisher thread")
            int publisherThreads,
            @Knob(key = "gateway.max-outstanding", flag = "--gateway-max-outstanding", value = "10000", min = 1, max = 10_000_000,
                    doc = "V3: messages queued or awaiting a confirm (503 past it)")
            int maxOutstanding) {
        public Gateway {
            Objects.requireNonNull(mode, "gateway.mode");
            Objects.requireNonNull(exchange, "gateway.exchange");
            if (routingKey == null || routingKey.isEmpty()) throw new IllegalArgumentException("gateway.routing-key must not be empty");
            positive("gateway.confirm-timeout", confirmTimeout);
            positive("gateway.channels", channels);
            positive("gateway.publisher-threads", publisherThreads);
            positive("gateway.max-outstanding", maxOutstanding);
        }
    }

    /** The consumer that stores device events in PostgreSQL. */
    public record Ingest(
            @Knob(key = "ingest.enabled", flag = "--ingest", value = "false",
                    doc = "run the consumer that stores device events in PostgreSQL")
            boolean enabled,
            @Knob(key = "ingest.mode", flag = "--ingest-mode", value = "pipelined",
                    doc = "`sequential` (insert, commit, ack, next) or `pipelined` (batched, bounded in flight)")
            IngestMode mode,
            @Knob(key = "ingest.queue", flag = "--ingest-queue", value = "keel.ingest",
                    doc = "the durable queue of device events")
            String queue,
            @Knob(key = "ingest.prefetch", flag = "--ingest-prefetch", value = "500", min = 1, max = 65_535,
                    doc = "pipelined: unacknowledged deliveries at once")
            int prefetch,
            @Knob(key = "ingest.writers", flag = "--ingest-writers", value = "4", min = 1, max = 256,
                    doc = "pipelined: database connections inserting at once")
            int writers,
            @Knob(key = "ingest.batch-size", flag = "--ingest-batch-size", value = "100", min = 1, max = 10_000,
                    doc = "pipelined: rows per insert statement at most")
            int batchSize,
            @Knob(key = "ingest.stop-timeout", flag = "--ingest-stop-timeout", value = "10s",
                    doc = "how long a stop waits for the deliveries taken to be stored and acked (the broker redelivers the rest)")
            Duration stopTimeout) {
        public Ingest {
            Objects.requireNonNull(mode, "ingest.mode");
            if (queue == null || queue.isEmpty()) throw new IllegalArgumentException("ingest.queue must not be empty");
            positive("ingest.prefetch", prefetch);
            if (prefetch > 65_535) throw new IllegalArgumentException("ingest.prefetch must be <= 65535: " + prefetch);
            positive("ingest.writers", writers);
            positive("ingest.batch-size", batchSize);
            positive("ingest.stop-timeout", stopTimeout);
        }
    }

    /** The PostgreSQL database of the ingest pipeline ({@code jdbc:postgresql://host:port/name}). */
    public record Database(
            @Knob(key = "database.url", flag = "--database-url", value = "jdbc:postgresql://127.0.0.1:5432/keel",
                    doc = "the PostgreSQL database of the ingest pipeline")
            String url,
            @Knob(key = "database.user", flag = "--database-user", value = "keel", doc = "its user")
            String user,
            @Knob(key = "database.password", flag = "--database-password", value = "keel", as = As.VERBATIM, doc = "its password")
            String password) {
        public Database {
            if (url == null || !url.startsWith("jdbc:postgresql:")) {
                throw new IllegalArgumentException("database.url must start with jdbc:postgresql: " + url);
            }
            Objects.requireNonNull(user, "database.user");
            Objects.requireNonNull(password, "database.password");
        }
    }

    public static AmqpOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The broker's address (or the cluster's addresses) without the password, for messages and {@code /keel/health}. */
    public String brokerAddress() {
        return uri.getScheme() + "://" + String.join(",", nodes().stream().map(Address::toString).toList());
    }

    /** The nodes a connection may go to: {@code addresses}, or the host and port of {@code uri}. */
    public List<Address> nodes() {
        if (addresses.isEmpty()) {
            // As the client reads a URI: no host is localhost, no port the scheme's.
            return List.of(new Address(uri.getHost() == null ? "localhost" : uri.getHost(), uri.getPort() < 0 ? defaultPort() : uri.getPort()));
        }
        return addresses.stream().map(Address::parseAddress)
                .map(node -> node.getPort() < 0 ? new Address(node.getHost(), defaultPort()) : node).toList();
    }

    private int defaultPort() {
        return "amqps".equals(uri.getScheme()) ? 5671 : 5672;
    }

    /** {@code queueType} with {@code auto} resolved: quorum when more than one address is given. */
    public QueueType resolvedQueueType() {
        if (queueType != QueueType.AUTO) return queueType;
        return addresses.size() > 1 ? QueueType.QUORUM : QueueType.CLASSIC;
    }

    /** The arguments every queue the gateway or the ingest pipeline declares carries (null for a classic queue). */
    public Map<String, Object> queueArguments() {
        return resolvedQueueType().arguments();
    }

    /** Flat setters, each naming the YAML key of its knob; the defaults are the declarations'. */
    public static final class Builder extends KnobBuilder<AmqpOptions, Builder> {
        private Builder() {
            super(KNOBS);
        }

        public Builder uri(URI uri) { return set("amqp.uri", uri); }
        public Builder addresses(List<String> addresses) { return set("amqp.addresses", List.copyOf(addresses)); }
        public Builder queueType(QueueType queueType) { return set("amqp.queue-type", queueType); }
        public Builder recoveryInterval(Duration recoveryInterval) { return set("amqp.recovery-interval", recoveryInterval); }
        public Builder mode(GatewayMode mode) { return set("gateway.mode", mode); }
        public Builder exchange(String exchange) { return set("gateway.exchange", exchange); }
        public Builder routingKey(String routingKey) { return set("gateway.routing-key", routingKey); }
        public Builder confirmTimeout(Duration confirmTimeout) { return set("gateway.confirm-timeout", confirmTimeout); }
        public Builder channels(int channels) { return set("gateway.channels", channels); }
        public Builder publisherThreads(int publisherThreads) { return set("gateway.publisher-threads", publisherThreads); }
        public Builder maxOutstanding(int maxOutstanding) { return set("gateway.max-outstanding", maxOutstanding); }
        public Builder ingestEnabled(boolean ingestEnabled) { return set("ingest.enabled", ingestEnabled); }
        public Builder ingestMode(IngestMode ingestMode) { return set("ingest.mode", ingestMode); }
        public Builder ingestQueue(String ingestQueue) { return set("ingest.queue", ingestQueue); }
        public Builder prefetch(int prefetch) { return set("ingest.prefetch", prefetch); }
        public Builder writers(int writers) { return set("ingest.writers", writers); }
        public Builder batchSize(int batchSize) { return set("ingest.batch-size", batchSize); }
        public Builder ingestStopTimeout(Duration stopTimeout) { return set("ingest.stop-timeout", stopTimeout); }
        public Builder databaseUrl(String databaseUrl) { return set("database.url", databaseUrl); }
        public Builder databaseUser(String databaseUser) { return set("database.user", databaseUser); }
        public Builder databasePassword(String databasePassword) { return set("database.password", databasePassword); }

        /** The broker as text; a malformed URI is refused. */
        public Builder uri(String uri) {
            return uri((URI) KNOBS.byYaml("amqp.uri").orElseThrow().parse(uri));
        }
    }
}
