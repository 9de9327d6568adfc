package keel.core.log;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.ResourceBundle;
import java.util.logging.Formatter;
import java.util.logging.Handler;

/**
 * Structured, cheap logging on the JDK's {@link System.Logger}: an event name in snake_case followed
 * by key=value pairs ({@code event=read_error id=42 cause=...}). The level check happens here, once,
 * so call sites stay one line and cost nothing when the level is off.
 *
 * <p>The format is one per process ({@link #useFormat}): {@link LogFormat#TEXT} hands the logger the
 * line as text and the cause as its throwable; {@link LogFormat#JSON} hands it the event, the pairs
 * and the cause as one parameter, which {@link JsonFormatter} writes as the members of a JSON object.
 */
public final class Log {
    private static volatile LogFormat format = LogFormat.TEXT;
    /** The formatters {@link #useFormat} replaced on JUL's root handlers, to put back for text. */
    private static final Map<Handler, Formatter> replaced = new IdentityHashMap<>();

    private final Logger logger;

    private Log(Logger logger) {
        this.logger = logger;
    }

    public static Log of(Class<?> type) {
        return new Log(System.getLogger(type.getName()));
    }

    /**
     * Writes every line from now on in {@code next}: for the whole process, as logging configuration
     * is. {@code JSON} also puts a {@link JsonFormatter} on the handlers of JUL's root logger (where
     * {@code System.Logger} writes by default), so what other libraries log through JUL comes out as
     * JSON too; {@code TEXT} puts back the formatters that replaced. Called once at start by an
     * application ({@code bin/keel serve}); a library leaves it alone.
     */
    public static synchronized void useFormat(LogFormat next) {
        format = next;
        java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
        for (Handler handler : root.getHandlers()) {
            if (next == LogFormat.JSON && !(handler.getFormatter() instanceof JsonFormatter)) {
                replaced.put(handler, handler.getFormatter());
                handler.setFormatter(new JsonFormatter());
            } else if (next == LogFormat.TEXT && replaced.containsKey(handler)) {
                handler.setFormatter(replaced.remove(handler));
            }
        }
    }

    /** The format lines are written in now. */
    public static LogFormat format() {
        return format;
    }

    public void debug(String event, Object... keyValues) {
        log(Level.DEBUG, event, null, keyValues);
    }

    public void info(String event, Object... keyValues) {
        log(Level.INFO, event, null, keyValues);
    }

    public void warn(String event, Object... keyValues) {
        log(Level.WARNING, event, null, keyValues);
    }

    public void warn(String event, Throwable cause, Object... keyValues) {
        log(Level.WARNING, event, cause, keyValues);
    }

    public void error(String event, Throwable cause, Object... keyValues) {
        log(Level.ERROR, event, cause, keyValues);
    }

    public boolean isDebugEnabled() {
        return logger.isLoggable(Level.DEBUG);
    }

    private void log(Level level, String event, Throwable cause, Object[] keyValues) {
        if (!logger.isLoggable(level)) return;
        Fields fields = new Fields(event, keyValues, cause);
        if (format == LogFormat.JSON) logger.log(level, (ResourceBundle) null, "{0}", fields); // the cause travels in fields
        else if (cause == null) logger.log(level, fields.toString());
        else logger.log(level, fields.toString(), cause);
    }

    /**
     * One line's content: the event, its key/value pairs (names at even indexes) and the cause, or
     * null. {@link #toString()} is the text line, which a formatter other than {@link JsonFormatter}
     * prints.
     */
    record Fields(String event, Object[] keyValues, Throwable cause) {
        /** Appends {@code ,"event":"...","key":value...}: the members after the line's first. */
        void appendJsonMembers(StringBuilder out) {
            Json.appendMember(out, "event", event);
            for (int i = 0; i + 1 < keyValues.length; i += 2) {
                Json.appendMember(out, String.valueOf(keyValues[i]), keyValues[i + 1]);
            }
        }

        @Override
        public String toString() {
            StringBuilder line = new StringBuilder(64).append("event=").append(event);
            for (int i = 0; i + 1 < keyValues.length; i += 2) {
                line.append(' ').append(keyValues[i]).append('=').append(keyValues[i + 1]);
            }
            return line.toString();
        }
    }
}
