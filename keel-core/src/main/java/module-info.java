/**
 * Keel's core: event loops, channels and their TLS layer, buffers, the loop guard and structured logs.
 * JDK only.
 *
 * <p>The packages whose types appear in keel-http's API are exported to everyone: loops
 * ({@code LoopGroup}, {@code EventLoop}), the guard ({@code LagProbe}, {@code BlockedLoop}), logs
 * ({@code Log}, {@code LogFormat}), TLS ({@code ClientAuth}, {@code Pem}, {@code HandshakeFailures}) and the
 * startup timeline ({@code StartupTimeline}, marked by the server and read by applications).
 * Channels and buffers are the machinery protocols are written on, exported to Keel's own modules only.
 */
@SuppressWarnings("module") // the qualified exports name keel.http, compiled after this module
module keel.core {
    requires transitive java.logging;
    requires java.management;

    exports keel.core.loop;
    exports keel.core.guard;
    exports keel.core.log;
    exports keel.core.tls;
    exports keel.core.startup;
    exports keel.core.net to keel.http;
    exports keel.core.buffer to keel.http;
}
