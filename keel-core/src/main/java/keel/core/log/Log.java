package keel.core.log;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * Structured, cheap logging on the JDK's {@link System.Logger}: an event name in snake_case followed
 * by key=value pairs ({@code event=read_error id=42 cause=...}). The level check happens here, once,
 * so call sites stay one line and cost nothing when the level is off.
 */
public final class Log {
    private final Logger logger;

    private Log(Logger logger) {
        this.logger = logger;
    }

    public static Log of(Class<?> type) {
        return new Log(System.getLogger(type.getName()));
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
        StringBuilder line = new StringBuilder(64).append("event=").append(event);
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            line.append(' ').append(keyValues[i]).append('=').append(keyValues[i + 1]);
        }
        if (cause == null) logger.log(level, line.toString());
        else logger.log(level, line.toString(), cause);
    }
}
