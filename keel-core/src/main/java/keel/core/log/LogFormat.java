package keel.core.log;

import java.util.Locale;

/**
 * How Keel writes its log lines: the lines of {@link Log} and the server's access log alike. One
 * format per process, chosen at start ({@link Log#useFormat}).
 */
public enum LogFormat {
    /** {@code event=read_error id=42 cause=...}: key=value pairs after the event name. */
    TEXT,
    /** One JSON object per line: {@code {"time":...,"level":...,"logger":...,"event":"read_error","id":42}}. */
    JSON;

    /** The configuration word: {@code text} or {@code json}. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }
}
