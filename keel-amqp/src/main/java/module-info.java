/**
 * RabbitMQ for Keel: the broker connection and its health route, the gateway that publishes in each
 * execution model, and the ingest pipeline from RabbitMQ to PostgreSQL (whose JDBC driver
 * {@code java.sql.DriverManager} finds as a service).
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"}) // amqp-client and Micrometer have automatic modules only; their types are in this API
module keel.amqp {
    requires transitive keel.http;
    requires transitive com.rabbitmq.client;
    requires transitive micrometer.core;
    requires java.sql;

    exports keel.amqp;
    exports keel.amqp.gateway;
    exports keel.amqp.ingest;
}
