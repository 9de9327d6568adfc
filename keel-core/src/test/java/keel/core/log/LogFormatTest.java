package keel.core.log;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@link Log} hands JUL in each format, and what {@link TextFormatter} and {@link JsonFormatter} make of it. */
class LogFormatTest {
    private final Logger jul = Logger.getLogger(LogFormatTest.class.getName());
    private final List<LogRecord> records = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Log log = Log.of(LogFormatTest.class);

    @BeforeEach
    void capture() {
        jul.setUseParentHandlers(false);
        jul.setLevel(Level.ALL);
        jul.addHandler(capture);
    }

    @AfterEach
    void release() {
        Log.useFormat(LogFormat.TEXT);
        jul.removeHandler(capture);
        jul.setUseParentHandlers(true);
        jul.setLevel(null);
    }

    @Test
    void textHandsTheLineAndTheCause() {
        IOException cause = new IOException("boom");
        log.warn("read_failed", cause, "id", 42, "peer", "10.0.0.1");
        LogRecord record = records.getFirst();
        assertThat(record.getMessage()).isEqualTo("event=read_failed id=42 peer=10.0.0.1");
        assertThat(record.getThrown()).isSameAs(cause);
        assertThat(record.getLevel()).isEqualTo(Level.WARNING);
    }

    @Test
    void jsonWritesTheEventEveryPairAndTheStackAsMembers() {
        Log.useFormat(LogFormat.JSON);
        IOException cause = new IOException("boom");
        log.warn("read_failed", cause, "id", 42, "ratio", 0.5, "ok", true, "peer", "a \"quoted\"\nname", "none", null);
        String line = new JsonFormatter().format(records.getFirst());
        assertThat(line).matches("\\{\"time\":\"\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z\",.*\\}\n")
                .contains("\"level\":\"WARNING\",\"logger\":\"keel.core.log.LogFormatTest\",\"event\":\"read_failed\",\"id\":42,"
                        + "\"ratio\":0.5,\"ok\":true,\"peer\":\"a \\\"quoted\\\"\\nname\",\"none\":null,"
                        + "\"exception\":\"java.io.IOException: boom\\n\\tat " + cause.getStackTrace()[0] + "\\n");
        assertThat(line.indexOf('\n')).as("one line").isEqualTo(line.length() - 1);
    }

    @Test
    void jsonNamesLevelsAsSystemLoggerDoes() {
        Log.useFormat(LogFormat.JSON);
        log.debug("a");
        log.info("b");
        log.error("c", new IllegalStateException("x"));
        JsonFormatter formatter = new JsonFormatter();
        assertThat(records).extracting(record -> formatter.format(record).replaceAll(".*\"level\":\"(\\w+)\".*\n", "$1"))
                .containsExactly("DEBUG", "INFO", "ERROR");
    }

    @Test
    void aRecordNotFromLogIsItsMessage() {
        LogRecord record = new LogRecord(Level.INFO, "connected to {0}");
        record.setParameters(new Object[]{"broker:5672"});
        record.setLoggerName("com.rabbitmq.client");
        assertThat(new JsonFormatter().format(record))
                .endsWith(",\"level\":\"INFO\",\"logger\":\"com.rabbitmq.client\",\"message\":\"connected to broker:5672\"}\n");
    }

    @Test
    void textIsOneLineOfTimeLevelLoggerAndThePairs() {
        log.info("connected", "peer", "10.0.0.1", "id", 42);
        assertThat(new TextFormatter().format(records.getFirst()))
                .matches("time=\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z level=INFO logger=keel.core.log.LogFormatTest event=connected peer=10.0.0.1 id=42\n");
    }

    @Test
    void textPutsTheStackTraceOnTheLinesAfter() {
        IOException cause = new IOException("boom");
        log.warn("read_failed", cause, "id", 42);
        String text = new TextFormatter().format(records.getFirst());
        assertThat(text).matches("(?s)time=\\S+ level=WARNING logger=keel.core.log.LogFormatTest event=read_failed id=42\n"
                + "java.io.IOException: boom\n\tat .*\n");
        assertThat(text).contains("\tat " + cause.getStackTrace()[0] + "\n");
    }

    @Test
    void textGivesARecordNotFromLogItsMessageLast() {
        LogRecord record = new LogRecord(Level.INFO, "connected to {0}");
        record.setParameters(new Object[]{"broker:5672"});
        record.setLoggerName("com.rabbitmq.client");
        assertThat(new TextFormatter().format(record)).matches("time=\\S+ level=INFO logger=com.rabbitmq.client message=connected to broker:5672\n");
    }

    @Test
    void eachFormatPutsItsFormatterOnTheRootHandlers() {
        Handler root = Logger.getLogger("").getHandlers()[0];
        var before = root.getFormatter();
        try {
            Log.useFormat(LogFormat.JSON);
            assertThat(root.getFormatter()).isInstanceOf(JsonFormatter.class);
            assertThat(Log.format()).isEqualTo(LogFormat.JSON);
            Log.useFormat(LogFormat.TEXT);
            assertThat(root.getFormatter()).isInstanceOf(TextFormatter.class);
            assertThat(Log.format()).isEqualTo(LogFormat.TEXT);
        } finally {
            root.setFormatter(before);
        }
    }
}
