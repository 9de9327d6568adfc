package keel.core.log;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ResourceBundle;
import java.util.logging.Handler;

/**
 * Structured, cheap logging on the JDK's {@link System.Logger}: an event name in snake_case followed
 * by key=value pairs ({@code event=read_error id=42 cause=...}). The level check happens here, once,
 * so call sites stay one line and cost nothing when the level is off.
 *
 * <p>The format is one per process ({@link #useFormat}): {@link LogFormat#TEXT} hands the logger the
 * line as text and the cause as its throwable, which {@link TextFormatter} writes on one line after
 * the time, level and logger; {@link LogFormat#JSON} hands it the event, the pairs and the cause as
 * one parameter, which {@link JsonFormatter} writes as the members of a JSON object.
 */
public final class Log {
    private static volatile LogFormat format = LogFormat.TEXT;

    private final Logger logger;

    private Log(Logger logger) {
        this.logger = logger;
    }

    public static Log of(Class<?> type) {
        return new Log(System.getLogger(type.getName()));
    }

    /**
     * Writes every line from now on in {@code next}: for the whole process, as logging configuration
     * is. It also puts the format's formatter ({@link TextFormatter}, {@link JsonFormatter}) on the
     * handlers of JUL's root logger (where {@code System.Logger} writes by default), so that every
     * record, other libraries' too, is one line of that format (JUL's own formatter writes two lines
     * a record, the first naming this class as its source). Called once at start by an application
     * ({@code bin/keel serve}); a library leaves it alone.
     */
    public static synchronized void useFormat(LogFormat next) {
        format = next;
        for (Handler handler : java.util.logging.Logger.getLogger("").getHandlers()) {
            handler.setFormatter(next == LogFormat.JSON ? new JsonFormatter() : new TextFormatter());
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

    /** A JUL level as {@link System.Logger.Level} names it: {@code TRACE}, {@code DEBUG}, {@code INFO}, {@code WARNING}, {@code ERROR}. */
    static String levelName(java.util.logging.Level level) {
        int value = level.intValue();
        if (value >= java.util.logging.Level.SEVERE.intValue()) return "ERROR";
        if (value >= java.util.logging.Level.WARNING.intValue()) return "WARNING";
        if (value >= java.util.logging.Level.INFO.intValue()) return "INFO";
        if (value >= java.util.logging.Level.FINE.intValue()) return "DEBUG";
        return "TRACE";
    }

    /** The whole stack trace of {@code thrown}, without a line break at its end. */
    static String stackTrace(Throwable thrown) {
        StringWriter text = new StringWriter(512);
        try (PrintWriter writer = new PrintWriter(text)) {
            thrown.printStackTrace(writer);
        }
        return text.toString().stripTrailing();
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
