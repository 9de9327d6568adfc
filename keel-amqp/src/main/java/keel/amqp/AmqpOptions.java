package keel.amqp;

import static keel.http.server.ConfigValues.positive;

import keel.amqp.gateway.GatewayMode;
import keel.amqp.ingest.IngestMode;

import com.rabbitmq.client.Address;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Every knob of the RabbitMQ gateway and the ingest pipeline, immutable, with all defaults in
 * {@link Builder}. The YAML keys and CLI flags of each component are listed in {@link AmqpConfigKeys}.
 *
 * @param uri              the broker, {@code amqp://user:password@host:port/vhost}: with {@code addresses},
 *                         only its scheme, credentials and virtual host count
 * @param addresses        the nodes of a cluster, {@code host:port} each (empty: the node of {@code uri});
 *                         a connection goes to any live one and, when its node is lost, to another
 * @param queueType        the type of the queues declared; {@code auto}: quorum with more than one address
 * @param recoveryInterval how often a lost (or never made) broker connection is tried again
 */
public record AmqpOptions(URI uri, List<String> addresses, QueueType queueType, Duration recoveryInterval,
                          Gateway gateway, Ingest ingest, Database database) {

    public AmqpOptions {
        Objects.requireNonNull(uri, "amqp.uri");
        if (!"amqp".equals(uri.getScheme()) && !"amqps".equals(uri.getScheme())) {
            throw new IllegalArgumentException("amqp.uri must start with amqp:// or amqps://: " + uri);
        }
        addresses = List.copyOf(addresses);
        Objects.requireNonNull(queueType, "amqp.queue-type");
        positive("amqp.recovery-interval", recoveryInterval);
        Objects.requireNonNull(gateway, "gateway");
        Objects.requireNonNull(ingest, "ingest");
        Objects.requireNonNull(database, "database");
    }

    /**
     * {@code POST /gateway/publish}.
     *
     * @param mode             where the publish runs: {@code event-loop}, {@code worker-pool}, {@code async}, {@code virtual-thread}
     * @param exchange         the exchange messages go to ({@code ""}: the default exchange)
     * @param routingKey       the routing key when a request names none; with the default exchange this
     *                         queue is declared (durable) on connect
     * @param confirmTimeout   how long a request waits for the broker's confirm before it answers 504
     * @param channels         synchronous modes: channels, each carrying one unconfirmed message at a time
     * @param publisherThreads async mode: channels, each fed by one publisher thread
     * @param maxOutstanding   async mode: messages queued or awaiting a confirm; past it a request gets 503
     */
    public record Gateway(GatewayMode mode, String exchange, String routingKey, Duration confirmTimeout,
                          int channels, int publisherThreads, int maxOutstanding) {
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

    /**
     * The consumer that stores device events in PostgreSQL.
     *
     * @param enabled   false: no consumer runs
     * @param mode      {@code sequential} or {@code pipelined}
     * @param queue     the (durable) queue of device events
     * @param prefetch  pipelined: unacknowledged deliveries at once
     * @param writers   pipelined: database connections inserting at once
     * @param batchSize pipelined: rows per insert statement at most
     */
    public record Ingest(boolean enabled, IngestMode mode, String queue, int prefetch, int writers, int batchSize) {
        public Ingest {
            Objects.requireNonNull(mode, "ingest.mode");
            if (queue == null || queue.isEmpty()) throw new IllegalArgumentException("ingest.queue must not be empty");
            positive("ingest.prefetch", prefetch);
            if (prefetch > 65_535) throw new IllegalArgumentException("ingest.prefetch must be <= 65535: " + prefetch);
            positive("ingest.writers", writers);
            positive("ingest.batch-size", batchSize);
        }
    }

    /** The PostgreSQL database of the ingest pipeline ({@code jdbc:postgresql://host:port/name}). */
    public record Database(String url, String user, String password) {
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

    /** Flat setters named after the components; every default lives here. */
    public static final class Builder {
        private URI uri = URI.create("amqp://guest:guest@127.0.0.1:5672");
        private List<String> addresses = List.of();
        private QueueType queueType = QueueType.AUTO;
        private Duration recoveryInterval = Duration.ofSeconds(1);
        private GatewayMode mode = GatewayMode.ASYNC;
        private String exchange = "";
        private String routingKey = "keel.gateway";
        private Duration confirmTimeout = Duration.ofSeconds(5);
        private int channels = 128;
        private int publisherThreads = 2;
        private int maxOutstanding = 10_000;
        private boolean ingestEnabled = false;
        private IngestMode ingestMode = IngestMode.PIPELINED;
        private String ingestQueue = "keel.ingest";
        private int prefetch = 500;
        private int writers = 4;
        private int batchSize = 100;
        private String databaseUrl = "jdbc:postgresql://127.0.0.1:5432/keel";
        private String databaseUser = "keel";
        private String databasePassword = "keel";

        private Builder() {
        }

        public Builder uri(URI uri) {
            this.uri = uri;
            return this;
        }

        public Builder uri(String uri) {
            try {
                return uri(new URI(uri.trim()));
            } catch (java.net.URISyntaxException e) {
                throw new IllegalArgumentException("not a URI: " + e.getMessage());
            }
        }

        /** Each {@code host:port} (or {@code host}, on the scheme's default port); checked here. */
        public Builder addresses(List<String> addresses) {
            for (String address : addresses) {
                Address parsed;
                try {
                    parsed = Address.parseAddress(address.strip());
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException("not a host:port: '" + address + "'");
                }
                if (parsed.getHost().isEmpty() || parsed.getPort() > 65_535 || parsed.getPort() == 0 || parsed.getPort() < -1) {
                    throw new IllegalArgumentException("not a host:port: '" + address + "'");
                }
            }
            this.addresses = addresses.stream().map(String::strip).toList();
            return this;
        }

        public Builder queueType(QueueType queueType) {
            this.queueType = queueType;
            return this;
        }

        public Builder recoveryInterval(Duration recoveryInterval) {
            this.recoveryInterval = recoveryInterval;
            return this;
        }

        public Builder mode(GatewayMode mode) {
            this.mode = mode;
            return this;
        }

        public Builder exchange(String exchange) {
            this.exchange = exchange;
            return this;
        }

        public Builder routingKey(String routingKey) {
            this.routingKey = routingKey;
            return this;
        }

        public Builder confirmTimeout(Duration confirmTimeout) {
            this.confirmTimeout = confirmTimeout;
            return this;
        }

        public Builder channels(int channels) {
            this.channels = channels;
            return this;
        }

        public Builder publisherThreads(int publisherThreads) {
            this.publisherThreads = publisherThreads;
            return this;
        }

        public Builder maxOutstanding(int maxOutstanding) {
            this.maxOutstanding = maxOutstanding;
            return this;
        }

        public Builder ingestEnabled(boolean ingestEnabled) {
            this.ingestEnabled = ingestEnabled;
            return this;
        }

        public Builder ingestMode(IngestMode ingestMode) {
            this.ingestMode = ingestMode;
            return this;
        }

        public Builder ingestQueue(String ingestQueue) {
            this.ingestQueue = ingestQueue;
            return this;
        }

        public Builder prefetch(int prefetch) {
            this.prefetch = prefetch;
            return this;
        }

        public Builder writers(int writers) {
            this.writers = writers;
            return this;
        }

        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        public Builder databaseUrl(String databaseUrl) {
            this.databaseUrl = databaseUrl;
            return this;
        }

        public Builder databaseUser(String databaseUser) {
            this.databaseUser = databaseUser;
            return this;
        }

        public Builder databasePassword(String databasePassword) {
            this.databasePassword = databasePassword;
            return this;
        }

        public AmqpOptions build() {
            return new AmqpOptions(uri, addresses, queueType, recoveryInterval,
                    new Gateway(mode, exchange, routingKey, confirmTimeout, channels, publisherThreads, maxOutstanding),
                    new Ingest(ingestEnabled, ingestMode, ingestQueue, prefetch, writers, batchSize),
                    new Database(databaseUrl, databaseUser, databasePassword));
        }
    }
}
