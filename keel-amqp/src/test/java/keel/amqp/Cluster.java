package keel.amqp;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The three-node RabbitMQ cluster of {@code bin/keel services cluster up}: node {@code n} (1..3)
 * listens on 127.0.0.1:568n and writes its beam's pid to {@code $KEEL_CLUSTER_DIR/node<n>/pid}.
 * The tests kill a node's beam by that pid (SIGKILL) and start it again with the same command,
 * which waits until the node is back in the cluster.
 */
public final class Cluster {
    public static final int NODES = 3;
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path DIR = Path.of(env("KEEL_CLUSTER_DIR", "/var/lib/keel-rabbitmq-cluster"));

    private Cluster() {
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    public static int port(int node) {
        return 5680 + node;
    }

    /** The node listening on {@code host:port}. */
    public static int nodeOf(String hostAndPort) {
        return Integer.parseInt(hostAndPort.substring(hostAndPort.lastIndexOf(':') + 1)) - 5680;
    }

    /** Options with the cluster's three addresses (so quorum queues) and the test database. */
    public static AmqpOptions.Builder options() {
        return options(1, 2, 3);
    }

    /** Options with the addresses of {@code nodes} alone (two or more: quorum queues). */
    public static AmqpOptions.Builder options(int... nodes) {
        List<String> addresses = new ArrayList<>();
        for (int node : nodes) addresses.add("127.0.0.1:" + port(node));
        return Services.options().uri("amqp://guest:guest@127.0.0.1:" + port(nodes[0])).addresses(addresses);
    }

    /** Starts whatever node is down (all of them the first time) and waits until all three run together. */
    public static void up() throws Exception {
        run(ROOT.resolve("bin/keel").toString(), "services", "cluster", "up");
    }

    /** A connection to node {@code node} alone, for the test's own checks. */
    public static Connection connect(int node) throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost("127.0.0.1");
        factory.setPort(port(node));
        factory.setConnectionTimeout(3_000);
        factory.setAutomaticRecoveryEnabled(false);
        try {
            return factory.newConnection("keel-test-node-" + node);
        } catch (Exception e) {
            throw new IllegalStateException("RabbitMQ cluster node " + node + " is not reachable on 127.0.0.1:" + port(node) + " (" + e
                    + "). These tests need the cluster: start it with 'bin/keel services cluster up'.", e);
        }
    }

    /** A fresh quorum queue declared on {@code node}, which leads it (the broker places a new leader on the declaring node). */
    public static String newQuorumQueue(int node, String prefix) throws Exception {
        String queue = "keel.test." + prefix + "." + UUID.randomUUID().toString().substring(0, 8);
        try (Connection connection = connect(node); Channel channel = connection.createChannel()) {
            channel.queueDeclare(queue, true, false, false, Map.of("x-queue-type", "quorum"));
        }
        return queue;
    }

    /** The node that leads {@code queue} now, asked of {@code askNode}. */
    public static int leader(String queue, int askNode) throws Exception {
        for (String line : ctl(askNode, "list_queues", "name", "leader").lines().toList()) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length == 2 && fields[0].equals(queue)) {
                return Integer.parseInt(fields[1].replaceAll("^keel-cluster-(\\d+)@.*$", "$1"));
            }
        }
        throw new IllegalStateException("no leader listed for " + queue);
    }

    /** Kills node {@code node}'s beam process with SIGKILL and waits until it is gone. */
    public static void kill(int node) throws Exception {
        long pid = Long.parseLong(Files.readString(DIR.resolve("node" + node).resolve("pid")).trim());
        ProcessHandle beam = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("node " + node + " (pid " + pid + ") is not running"));
        if (!beam.destroyForcibly()) throw new IllegalStateException("could not kill node " + node + " (pid " + pid + ")");
        beam.onExit().get(10, TimeUnit.SECONDS);
    }

    private static String ctl(int node, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(ROOT.resolve("bin/keel").toString(), "services", "cluster", "ctl", "" + node));
        command.addAll(List.of(args));
        return run(command.toArray(String[]::new));
    }

    private static String run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(180, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
        return output;
    }
}
