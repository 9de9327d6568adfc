package keel.http.server;

/** The threads of the blocking transport: one per connection. */
public enum Threads {
    /** A bounded pool of platform threads with a bounded queue of waiting connections. */
    PLATFORM,
    /** A virtual thread per connection, bounded by the connection limit. */
    VIRTUAL;

    public String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
