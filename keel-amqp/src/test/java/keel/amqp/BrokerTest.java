package keel.amqp;

import com.rabbitmq.client.Connection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A test class that checks the real broker with its own connection, {@link #broker}, open for the whole class.
 * Its methods are public: surefire opens to JUnit only the packages of the test classes a run selects,
 * and those extending this one live in other packages.
 */
public abstract class BrokerTest {
    protected static Connection broker;

    @BeforeAll
    public static void connectToBroker() {
        broker = Services.broker();
    }

    @AfterAll
    public static void closeBrokerConnection() throws Exception {
        broker.close();
    }
}
