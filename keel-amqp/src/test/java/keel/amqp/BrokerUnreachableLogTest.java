package keel.amqp;

import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/** A broker that stays away is warned about once, not at every try. */
class BrokerUnreachableLogTest {
    @Test
    void triesAgainstABrokerThatRefusesAreWarnedAboutOnceAndThenLoggedAtDebug() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0)) {
            port = closed.getLocalPort(); // free once closed: every connection to it is refused
        }
        Logger logger = Logger.getLogger(BrokerConnection.class.getName()); // held: the log manager keeps loggers weakly
        Level before = logger.getLevel();
        List<LogRecord> unreachable = new CopyOnWriteArrayList<>();
        CountDownLatch tenTries = new CountDownLatch(10);
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getMessage().contains("event=broker_unreachable")) {
                    unreachable.add(record);
                    tenTries.countDown();
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        handler.setLevel(Level.ALL);
        logger.setLevel(Level.FINE);
        logger.addHandler(handler);
        AmqpOptions options = AmqpOptions.builder().uri("amqp://guest:guest@127.0.0.1:" + port + "/")
                .recoveryInterval(Duration.ofMillis(20)).build();
        try (BrokerConnection connection = BrokerConnection.create("log-test", options, opened -> { }).connect()) {
            assertThat(tenTries.await(30, TimeUnit.SECONDS)).as("ten tries logged").isTrue();
            assertThat(connection.state()).isEqualTo(BrokerConnection.State.DOWN);
        } finally {
            logger.removeHandler(handler);
            logger.setLevel(before);
        }
        assertThat(unreachable.getFirst().getLevel()).isEqualTo(Level.WARNING);
        assertThat(unreachable.getFirst().getMessage()).contains("tries=1").contains("retry_in=20ms");
        assertThat(unreachable.subList(1, 10)).allSatisfy(record -> assertThat(record.getLevel()).isEqualTo(Level.FINE));
        assertThat(unreachable.get(9).getMessage()).contains("tries=10");
    }
}
