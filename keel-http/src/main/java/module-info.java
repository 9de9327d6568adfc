/**
 * Keel's HTTP/1.1 and WebSocket server, its router and executions, and its HTTP and WebSocket client.
 *
 * <p>The codec ({@code keel.http.codec}) is machinery and stays inside.
 */
module keel.http {
    requires transitive keel.core;
    requires java.management;

    exports keel.http;
    exports keel.http.client;
    exports keel.http.config;
    exports keel.http.router;
    exports keel.http.server;
    exports keel.http.warmup;
    exports keel.http.ws;

    uses keel.http.server.Warmup;
    provides keel.http.server.Warmup with keel.http.warmup.RequestPathWarmup;
}
