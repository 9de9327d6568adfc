package keel.http.server.exchange;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;

/** What each transport runs for the server: the bound socket and its connections. */
public interface Listener {
    /** Binds the port and starts accepting: the last step of a start, once everything a request needs is ready. */
    void open() throws IOException;

    InetSocketAddress address() throws IOException;

    int openConnections();

    void stop(Duration grace) throws IOException;
}
