package keel.lab;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import keel.amqp.AmqpOptions;

/**
 * The lab tests' broker and database: {@code KEEL_AMQP_URI}, {@code KEEL_DATABASE_URL},
 * {@code KEEL_DATABASE_USER} and {@code KEEL_DATABASE_PASSWORD}, defaulting to what
 * {@code bin/keel services up} starts.
 */
final class TestServices {
    private TestServices() {
    }

    static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    static String amqpUri() {
        return env("KEEL_AMQP_URI", "amqp://guest:guest@127.0.0.1:5672");
    }

    /** Deletes a test's own queue from the broker of {@code amqp}. */
    static void deleteQueue(AmqpOptions amqp, String queue) throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(amqp.uri());
        try (Connection connection = factory.newConnection("keel-test"); Channel channel = connection.createChannel()) {
            channel.queueDelete(queue);
        }
    }
}
