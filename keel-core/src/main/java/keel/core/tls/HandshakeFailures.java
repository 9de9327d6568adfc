package keel.core.tls;

import java.net.SocketTimeoutException;
import java.security.cert.CertificateException;
import java.util.List;
import java.util.Locale;

/**
 * The reasons a TLS handshake fails, as metric labels shared by every transport, and a mapping from
 * what the JDK throws to them. The JDK reports most failures as an {@link javax.net.ssl.SSLException}
 * whose message carries the alert or the check that failed, so the mapping reads the message: coarse,
 * but it only sorts failures for a counter; anything unrecognised is {@link #OTHER}.
 */
public final class HandshakeFailures {
    /** The handshake (or its first byte) did not arrive within the handshake timeout. */
    public static final String TIMEOUT = "timeout";
    /** The client spoke clear-text HTTP to a TLS port. */
    public static final String PLAIN_HTTP = "plain_http";
    /** No protocol version in common (a client below TLS 1.2). */
    public static final String PROTOCOL_VERSION = "protocol_version";
    /** A certificate was missing, untrusted, expired or for another host, on either side. */
    public static final String CERTIFICATE = "certificate";
    /** A renegotiation was attempted and refused. */
    public static final String RENEGOTIATION = "renegotiation";
    public static final String OTHER = "other";
    /** Every reason, for counters that start at 0. */
    public static final List<String> REASONS = List.of(TIMEOUT, PLAIN_HTTP, PROTOCOL_VERSION, CERTIFICATE, RENEGOTIATION, OTHER);

    private HandshakeFailures() {
    }

    /** The reason label of a handshake that ended with {@code failure}. */
    public static String reason(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SocketTimeoutException) return TIMEOUT;
            if (cause instanceof CertificateException) return CERTIFICATE;
            String message = cause.getMessage() == null ? "" : cause.getMessage().toLowerCase(Locale.ROOT);
            if (message.contains("protocol_version") || message.contains("protocol version") || message.contains("no appropriate protocol")) {
                return PROTOCOL_VERSION;
            }
            if (message.contains("certificate") || message.contains("unknown_ca") || message.contains("pkix")
                    || message.contains("subject alternative")) {
                return CERTIFICATE;
            }
            if (message.contains("renegotiat")) return RENEGOTIATION;
        }
        return OTHER;
    }
}
