package keel.core.log;

import java.util.logging.Formatter;
import java.util.logging.LogRecord;

/**
 * A JUL formatter that writes each record as one JSON object on one line:
 * {@code {"time":"2026-11-21T11:39:34.123Z","level":"WARNING","logger":"keel.http.server.HttpServer","event":"observer_failed","id":42,"exception":"java.lang...\n\tat ..."}}.
 * A line from {@link Log} carries its event and key/value pairs as members; any other record carries
 * its formatted text as {@code message}. The exception is the whole stack trace as one string.
 * Levels read as {@link System.Logger.Level} names: {@code TRACE}, {@code DEBUG}, {@code INFO},
 * {@code WARNING}, {@code ERROR}. Any thread, as JUL calls it.
 */
public final class JsonFormatter extends Formatter {

    /** Public and without arguments: JUL's configuration ({@code handlers.formatter=}) creates it by name. */
    public JsonFormatter() {
    }

    @Override
    public String format(LogRecord record) {
        StringBuilder line = new StringBuilder(192).append("{\"time\":\"").append(record.getInstant()).append('"');
        Json.appendMember(line, "level", Log.levelName(record.getLevel()));
        Json.appendMember(line, "logger", record.getLoggerName());
        Throwable thrown = record.getThrown();
        Object[] parameters = record.getParameters();
        if (parameters != null && parameters.length == 1 && parameters[0] instanceof Log.Fields fields) {
            fields.appendJsonMembers(line);
            if (thrown == null) thrown = fields.cause();
        } else {
            Json.appendMember(line, "message", formatMessage(record));
        }
        if (thrown != null) Json.appendMember(line, "exception", Log.stackTrace(thrown));
        return line.append("}\n").toString();
    }
}
