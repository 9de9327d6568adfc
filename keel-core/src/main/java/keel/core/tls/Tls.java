package keel.core.tls;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a transport needs to speak TLS on its connections: a shared {@link SSLContext}, the protocol
 * versions, client authentication (server side) or host name verification (client side), and how long
 * a handshake may take. Immutable; any thread may create engines from it at any time.
 *
 * <p>Every engine offers ALPN {@code http/1.1}, the only application protocol Keel speaks, and only
 * the configured protocol versions (default {@link #DEFAULT_PROTOCOLS}); nothing below TLS 1.2 is
 * accepted. A client resumes sessions because every engine of one {@code Tls} comes from the same
 * context and is created for its peer's host and port ({@link SSLContext#createSSLEngine(String, int)}).
 */
public final class Tls {
    public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");
    /** The ALPN name of HTTP/1.1 (RFC 7301). */
    public static final String HTTP_1_1 = "http/1.1";
    private static final Set<String> ALLOWED = Set.of("TLSv1.3", "TLSv1.2");
    private static final Set<String> TOO_OLD = Set.of("SSLv2Hello", "SSLv3", "TLSv1", "TLSv1.1");

    private final SSLContext context;
    private final List<String> protocols;
    private final ClientAuth clientAuth;
    private final Duration handshakeTimeout;
    private final boolean server;
    private final boolean verifyHostname;

    private Tls(SSLContext context, List<String> protocols, ClientAuth clientAuth, Duration handshakeTimeout, boolean server,
                boolean verifyHostname) {
        this.context = Objects.requireNonNull(context, "context");
        this.protocols = checkProtocols(protocols);
        List<String> supported = Arrays.asList(context.getSupportedSSLParameters().getProtocols());
        for (String protocol : this.protocols) {
            if (!supported.contains(protocol)) throw new IllegalArgumentException("this JDK's TLS context does not support " + protocol);
        }
        this.clientAuth = Objects.requireNonNull(clientAuth, "clientAuth");
        this.handshakeTimeout = Objects.requireNonNull(handshakeTimeout, "handshakeTimeout");
        if (handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
            throw new IllegalArgumentException("the TLS handshake timeout must be > 0: " + handshakeTimeout);
        }
        this.server = server;
        this.verifyHostname = verifyHostname;
    }

    /**
     * The TLS of a server.
     *
     * @param protocols        protocol versions to accept, null for {@link #DEFAULT_PROTOCOLS}
     * @param clientAuth       whether to ask clients for a certificate (trusted by {@code context})
     * @param handshakeTimeout how long a connection may take from its first byte to the end of its handshake
     */
    public static Tls server(SSLContext context, List<String> protocols, ClientAuth clientAuth, Duration handshakeTimeout) {
        return new Tls(context, protocols, clientAuth, handshakeTimeout, true, false);
    }

    /**
     * The TLS of a client.
     *
     * @param protocols      protocol versions to offer, null for {@link #DEFAULT_PROTOCOLS}
     * @param verifyHostname check that the server's certificate names the host connected to (RFC 2818);
     *                       turn it off only for tests
     */
    public static Tls client(SSLContext context, List<String> protocols, Duration handshakeTimeout, boolean verifyHostname) {
        return new Tls(context, protocols, ClientAuth.NONE, handshakeTimeout, false, verifyHostname);
    }

    /**
     * Returns {@code protocols} (null: the defaults) as an immutable list, or refuses an empty list, a
     * version below TLS 1.2 or an unknown name with a message that says which.
     */
    public static List<String> checkProtocols(List<String> protocols) {
        if (protocols == null) return DEFAULT_PROTOCOLS;
        if (protocols.isEmpty()) throw new IllegalArgumentException("at least one TLS protocol is needed (TLSv1.3, TLSv1.2)");
        for (String protocol : protocols) {
            if (TOO_OLD.contains(protocol)) {
                throw new IllegalArgumentException(protocol + " is below TLSv1.2 and not accepted; use TLSv1.3 and/or TLSv1.2");
            }
            if (!ALLOWED.contains(protocol)) throw new IllegalArgumentException("unknown TLS protocol '" + protocol + "'; use TLSv1.3 and/or TLSv1.2");
        }
        return List.copyOf(protocols);
    }

    /**
     * The parameters {@link #newServerEngine()} applies, for a transport that layers an
     * {@link javax.net.ssl.SSLSocket} instead: protocols, ALPN {@code http/1.1}, client authentication.
     * A fresh copy each call.
     */
    public SSLParameters serverParameters() {
        requireServer(true);
        SSLParameters parameters = context.getDefaultSSLParameters();
        parameters.setProtocols(protocols.toArray(String[]::new));
        parameters.setApplicationProtocols(new String[]{HTTP_1_1});
        switch (clientAuth) {
            case NONE -> parameters.setNeedClientAuth(false);
            case WANT -> parameters.setWantClientAuth(true);
            case NEED -> parameters.setNeedClientAuth(true);
        }
        return parameters;
    }

    /** A new engine for one accepted connection, in server mode. */
    public SSLEngine newServerEngine() {
        SSLEngine engine = context.createSSLEngine();
        engine.setUseClientMode(false); // before the parameters: switching modes resets the defaults
        engine.setSSLParameters(serverParameters());
        return engine;
    }

    /**
     * A new engine for one connection to {@code host}:{@code port}, in client mode. The JDK sends SNI
     * for a host name and none for an IP literal; with host name verification on, the server's
     * certificate must name {@code host} (a DNS name, or an IP address SAN for an IP literal).
     */
    public SSLEngine newClientEngine(String host, int port) {
        requireServer(false);
        SSLEngine engine = context.createSSLEngine(host, port);
        engine.setUseClientMode(true);
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setProtocols(protocols.toArray(String[]::new));
        parameters.setApplicationProtocols(new String[]{HTTP_1_1});
        parameters.setEndpointIdentificationAlgorithm(verifyHostname ? "HTTPS" : null);
        engine.setSSLParameters(parameters);
        return engine;
    }

    /**
     * The certificate chain the peer presented in {@code session}'s handshake (a client's, with client
     * authentication), or null when it presented none.
     */
    public static List<X509Certificate> peerCertificates(SSLSession session) {
        try {
            List<X509Certificate> chain = Arrays.stream(session.getPeerCertificates())
                    .filter(X509Certificate.class::isInstance).map(X509Certificate.class::cast).toList();
            return chain.isEmpty() ? null : chain;
        } catch (SSLPeerUnverifiedException anonymous) {
            return null; // no client authentication, or a client that chose to present nothing
        }
    }

    private void requireServer(boolean expected) {
        if (server != expected) throw new IllegalStateException("this is the TLS of a " + (server ? "server" : "client"));
    }

    public SSLContext context() {
        return context;
    }

    public List<String> protocols() {
        return protocols;
    }

    /** {@link ClientAuth#NONE} on a client. */
    public ClientAuth clientAuth() {
        return clientAuth;
    }

    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    public boolean isServer() {
        return server;
    }

    /** Whether a client checks the server's certificate against the host name; false on a server. */
    public boolean verifiesHostname() {
        return verifyHostname;
    }

    @Override
    public String toString() {
        return "Tls[" + (server ? "server, client-auth " + clientAuth.name().toLowerCase(java.util.Locale.ROOT) : "client, verify-hostname " + verifyHostname)
                + ", " + String.join(",", protocols) + ", handshake-timeout " + handshakeTimeout + "]";
    }
}
