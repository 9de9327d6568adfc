package keel.amqp.gateway;

import com.rabbitmq.client.AMQP;
import keel.http.HttpStatusException;
import keel.http.Request;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Date;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One message to publish, read from {@code POST /gateway/publish}: the body is the message; the
 * routing key comes from the {@code Routing-Key} header or the {@code key} query parameter, else
 * the configured default; a client's {@code Message-Id} header is kept (consumers use it to drop
 * duplicates), else one is generated. Messages are persistent.
 */
record Message(String routingKey, String messageId, AMQP.BasicProperties properties, byte[] body) {

    static final String ROUTING_KEY_HEADER = "Routing-Key";
    static final String MESSAGE_ID_HEADER = "Message-Id";
    /**
     * Generated ids are a random 64-bit prefix per process and a counter: unique without a
     * {@code UUID.randomUUID()} per request, which takes a shared SecureRandom's lock on the loop.
     */
    private static final String ID_PREFIX = "keel-" + HexFormat.of().toHexDigits(new SecureRandom().nextLong()) + "-";
    private static final AtomicLong ID_COUNTER = new AtomicLong();

    static Message from(Request request, String defaultRoutingKey) {
        String key = request.header(ROUTING_KEY_HEADER);
        if (key == null) key = request.queryParam("key").orElse(defaultRoutingKey);
        // AMQP short strings: at most 255 bytes.
        if (key.getBytes(StandardCharsets.UTF_8).length > 255) throw new HttpStatusException(400, "routing key longer than 255 bytes");
        String id = request.header(MESSAGE_ID_HEADER);
        if (id == null || id.isBlank()) id = ID_PREFIX + ID_COUNTER.incrementAndGet();
        else if (id.getBytes(StandardCharsets.UTF_8).length > 255) throw new HttpStatusException(400, "Message-Id longer than 255 bytes");
        String type = request.header("Content-Type");
        AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder()
                .deliveryMode(2)
                .messageId(id)
                .contentType(type == null ? "application/octet-stream" : type)
                .timestamp(new Date())
                .build();
        return new Message(key, id, properties, request.body());
    }
}
