package keel.amqp.ingest;

import com.rabbitmq.client.Delivery;

/**
 * One device event as delivered: its id (the AMQP {@code message-id}, unique per event, so a
 * redelivered event is recognised), its body, and the delivery tag to ack once it is stored.
 */
record Event(String id, byte[] body, long deliveryTag) {

    /** The event of {@code delivery}, or null when it carries no message id (it cannot be stored idempotently). */
    static Event of(Delivery delivery) {
        String id = delivery.getProperties().getMessageId();
        if (id == null || id.isBlank()) return null;
        return new Event(id, delivery.getBody(), delivery.getEnvelope().getDeliveryTag());
    }
}
