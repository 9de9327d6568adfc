package keel.amqp;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Where the tests find the real broker and database: {@code KEEL_AMQP_URI}, {@code KEEL_DATABASE_URL},
 * {@code KEEL_DATABASE_USER} and {@code KEEL_DATABASE_PASSWORD}, defaulting to what
 * {@code bin/keel services up} starts. A test that needs one fails at once, naming that command,
 * when it is not reachable.
 */
public final class Services {
    public static final String AMQP_URI = env("KEEL_AMQP_URI", "amqp://guest:guest@127.0.0.1:5672");
    public static final String DATABASE_URL = env("KEEL_DATABASE_URL", "jdbc:postgresql://127.0.0.1:5432/keel");
    public static final String DATABASE_USER = env("KEEL_DATABASE_USER", "keel");
    public static final String DATABASE_PASSWORD = env("KEEL_DATABASE_PASSWORD", "keel");

    private Services() {
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    /** Options pointing at the test broker and database. */
    public static AmqpOptions.Builder options() {
        return AmqpOptions.builder().uri(AMQP_URI).databaseUrl(DATABASE_URL).databaseUser(DATABASE_USER)
                .databasePassword(DATABASE_PASSWORD);
    }

    /** A connection for the test's own checks; fails naming {@code bin/keel services up} if the broker is away. */
    public static Connection broker() {
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(URI.create(AMQP_URI));
            factory.setConnectionTimeout(3_000);
            return factory.newConnection("keel-test");
        } catch (Exception e) {
            throw new IllegalStateException("RabbitMQ is not reachable at " + AMQP_URI + " (" + e + "). These tests need the real "
                    + "broker: start it with 'bin/keel services up' (or set KEEL_AMQP_URI).", e);
        }
    }

    public static java.sql.Connection database() {
        try {
            return DriverManager.getConnection(DATABASE_URL, DATABASE_USER, DATABASE_PASSWORD);
        } catch (Exception e) {
            throw new IllegalStateException("PostgreSQL is not reachable at " + DATABASE_URL + " as " + DATABASE_USER + " (" + e
                    + "). These tests need the real database: start it with 'bin/keel services up' (or set KEEL_DATABASE_URL).", e);
        }
    }

    /** A fresh durable queue for one test, named {@code keel.test.<prefix>.<random>}. */
    public static String newQueue(Connection connection, String prefix) throws Exception {
        String queue = "keel.test." + prefix + "." + UUID.randomUUID().toString().substring(0, 8);
        try (Channel channel = connection.createChannel()) {
            channel.queueDeclare(queue, true, false, false, null);
        }
        return queue;
    }

    /** Takes every message off {@code queue}, returning their bodies in queue order. */
    public static List<String> drain(Connection connection, String queue) throws Exception {
        List<String> bodies = new ArrayList<>();
        try (Channel channel = connection.createChannel()) {
            for (GetResponse got; (got = channel.basicGet(queue, true)) != null; ) {
                bodies.add(new String(got.getBody(), StandardCharsets.UTF_8));
            }
        }
        return bodies;
    }

    public static void deleteQueue(Connection connection, String queue) throws Exception {
        try (Channel channel = connection.createChannel()) {
            channel.queueDelete(queue);
        }
    }

    /** Runs {@code rabbitmqctl} (the broker's own admin tool), fails on a non-zero exit, returns its output. */
    public static String rabbitmqctl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("rabbitmqctl", "-q"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) throw new IllegalStateException("rabbitmqctl " + String.join(" ", args) + " failed: " + output);
        return output;
    }

    /**
     * Raises the broker's memory alarm (watermark 0: the broker blocks every connection that
     * publishes) until the returned handle is closed, which puts back the watermark it found.
     */
    public static AutoCloseable memoryAlarm() throws Exception {
        // "0.4" for a relative watermark, "{absolute,1073741824}" for an absolute one.
        String found = rabbitmqctl("eval", "vm_memory_monitor:get_vm_memory_high_watermark().").replaceAll("[{}\\s]", "");
        String[] restore = found.startsWith("absolute,")
                ? new String[]{"set_vm_memory_high_watermark", "absolute", found.substring("absolute,".length())}
                : new String[]{"set_vm_memory_high_watermark", found.replace("relative,", "")};
        if (!restore[restore.length - 1].matches("[0-9.]+")) throw new IllegalStateException("unexpected watermark: " + found);
        // A watermark of 0 is an alarm some earlier run left raised: put back RabbitMQ's default instead.
        if (Double.parseDouble(restore[restore.length - 1]) == 0) restore = new String[]{"set_vm_memory_high_watermark", "0.4"};
        rabbitmqctl("set_vm_memory_high_watermark", "0");
        String[] back = restore;
        return () -> rabbitmqctl(back);
    }
}
