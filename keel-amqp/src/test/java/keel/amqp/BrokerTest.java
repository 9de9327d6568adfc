package keel.amqp;

import com.rabbitmq.client.Connection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** A test class that checks the real broker with its own connection, {@link #broker}, open for the whole class. */
public abstract class BrokerTest {
    protected static Connection broker;

    @BeforeAll
    static void connectToBroker() {
        broker = Services.broker();
    }

    @AfterAll
    static void closeBrokerConnection() throws Exception {
        broker.close();
    }
}
