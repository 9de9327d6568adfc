package keel.http.server;

import keel.http.Execution;

/** How bytes move between sockets and handlers. */
public enum Transport {
    /** Event loops on NIO selectors; handlers run where their {@link Execution} says. */
    NIO,
    /** A thread per connection ({@link Threads} says which kind); the handler runs on that thread. */
    BLOCKING;

    public String word() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
