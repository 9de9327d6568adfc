package keel.core.log;

import java.util.logging.Formatter;
import java.util.logging.LogRecord;

/**
 * A JUL formatter that writes each record on one line of key=value pairs:
 * {@code time=2026-11-21T11:39:34.123Z level=WARNING logger=keel.http.server.HttpServer event=observer_failed id=42}.
 * A line from {@link Log} carries its event and pairs as they are (its text begins with
 * {@code event=}); any other record carries its formatted text as {@code message=}, last. An exception's stack trace follows on the lines after.
 * Levels are named as in {@link JsonFormatter}. Any thread, as JUL calls it.
 */
public final class TextFormatter extends Formatter {
    private static final String EVENT = "event=";

    /** Public and without arguments: JUL's configuration ({@code handlers.formatter=}) creates it by name. */
    public TextFormatter() {
    }

    @Override
    public String format(LogRecord record) {
        StringBuilder line = new StringBuilder(160).append("time=").append(record.getInstant())
                .append(" level=").append(Log.levelName(record.getLevel()))
                .append(" logger=").append(record.getLoggerName()).append(' ');
        String message = formatMessage(record);
        if (!message.startsWith(EVENT)) line.append("message="); // Log's lines begin with their event
        line.append(message).append('\n');
        if (record.getThrown() != null) line.append(Log.stackTrace(record.getThrown())).append('\n');
        return line.toString();
    }
}
