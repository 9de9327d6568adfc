package keel.http.server;

import keel.http.tls.TestCertificates;

/**
 * How a socket test reaches its server: the transport, in clear text or over TLS with the test CA's
 * server certificate (for {@code localhost} and {@code 127.0.0.1}). {@link TestServer} starts a server
 * on a wire, and its clients ({@link TestServer#raw()}, {@link TestServer#uri}, {@link
 * TestServer#httpClientBuilder()}) speak what the server speaks. The nio wires read and write
 * through {@code recv} and {@code send} ({@code server.native-io}), so every test on a wire proves
 * that path; a test without a wire runs the default, the JDK's socket channel.
 */
public enum Wire {
    NIO(Transport.NIO, false),
    BLOCKING(Transport.BLOCKING, false),
    NIO_TLS(Transport.NIO, true),
    BLOCKING_TLS(Transport.BLOCKING, true);

    private final Transport transport;
    private final boolean tls;

    Wire(Transport transport, boolean tls) {
        this.transport = transport;
        this.tls = tls;
    }

    public Transport transport() {
        return transport;
    }

    public boolean isTls() {
        return tls;
    }

    /** Sets the transport and, on a TLS wire, the server's certificate and key; returns {@code builder}. */
    public ServerOptions.Builder configure(ServerOptions.Builder builder) {
        builder.transport(transport);
        if (transport == Transport.NIO) builder.nativeIo(true);
        if (tls) builder.tlsCertificate(TestCertificates.serverCertPem()).tlsPrivateKey(TestCertificates.serverKeyPem());
        return builder;
    }
}
