package keel.amqp.ingest;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import keel.amqp.AmqpOptions;
import keel.amqp.BrokerConnection;

import java.nio.charset.StandardCharsets;

/**
 * Publishes synthetic device events to the ingest queue, confirmed, for the bench and the tests:
 * event {@code i} has the message id {@code <prefix>-<i>}, so publishing the same range twice
 * publishes duplicates.
 */
public final class EventLoad {
    private static final int CONFIRM_WINDOW = 1_000;

    private EventLoad() {
    }

    /** Publishes events {@code from} (inclusive) to {@code to} (exclusive); returns once the broker confirmed all. */
    public static void publish(AmqpOptions options, String prefix, int from, int to) throws Exception {
        try (Connection connection = BrokerConnection.open(options, "keel-event-load"); Channel channel = connection.createChannel()) {
            channel.queueDeclare(options.ingest().queue(), true, false, false, options.queueArguments());
            channel.confirmSelect();
            for (int i = from; i < to; i++) {
                AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder()
                        .deliveryMode(2).messageId(prefix + "-" + i).contentType("application/json").build();
                String body = "{\"device\":\"device-" + (i % 100) + "\",\"seq\":" + i + ",\"temperature\":" + (15 + i % 20) + "}";
                channel.basicPublish("", options.ingest().queue(), properties, body.getBytes(StandardCharsets.UTF_8));
                if ((i - from + 1) % CONFIRM_WINDOW == 0) channel.waitForConfirmsOrDie(30_000);
            }
            channel.waitForConfirmsOrDie(30_000);
        }
    }
}
