package keel.http.server.blocking;

import keel.core.tls.HandshakeFailures;
import keel.core.tls.Tls;

import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.Socket;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The start of a connection on a TLS port of the blocking transport, on the connection's own thread:
 * read the first byte; a TLS record gets an {@link SSLSocket} layered over the socket and its
 * handshake, anything else is a clear-text client. Every read is bounded by the handshake deadline
 * (the server's watchdog closes the socket past it, so a client trickling bytes cannot stretch it).
 */
final class BlockingTls {
    /** RFC 8446 §5.1: the content type of a handshake record, the first byte a TLS client sends. */
    private static final int HANDSHAKE_RECORD = 0x16;

    /** What the first bytes of a connection turned out to be. */
    sealed interface Start {
        /** The handshake completed: serve HTTP over {@code socket}; {@code peerCertificates} is null when the client sent none. */
        record Secured(SSLSocket socket, List<X509Certificate> peerCertificates) implements Start {
        }

        /** The first byte is not a TLS record: a clear-text client (its byte is consumed). */
        record PlainText() implements Start {
        }

        /** The client closed before sending a byte (a TCP health check, say). */
        record Closed() implements Start {
        }

        /** The handshake failed; {@code reason} is one of {@link HandshakeFailures#REASONS}. */
        record Failed(String reason, IOException cause) implements Start {
        }
    }

    private BlockingTls() {
    }

    /**
     * Sniffs and shakes hands on {@code raw}; {@code deadline} ({@link System#nanoTime()}) bounds the
     * whole of it. {@code onFirstByte} runs when the client's first byte arrived (or the wait for it ended).
     * A renegotiation later (TLS 1.2) is refused: {@code onRenegotiation} runs and the socket closes
     * as soon as the JDK reports the second handshake ({@code SSLSocket} cannot turn it down before).
     */
    static Start start(Socket raw, Tls tls, long deadline, Runnable onFirstByte, Runnable onRenegotiation) {
        try {
            raw.setSoTimeout(millisUntil(deadline));
            int first;
            try {
                first = raw.getInputStream().read();
            } finally {
                onFirstByte.run();
            }
            if (first < 0) return new Start.Closed();
            if (first != HANDSHAKE_RECORD) return new Start.PlainText();
            SSLSocketFactory factory = tls.context().getSocketFactory();
            // The overload that takes the bytes already read: the server-mode socket replays them first.
            SSLSocket socket = (SSLSocket) factory.createSocket(raw, new ByteArrayInputStream(new byte[]{(byte) first}), true);
            socket.setSSLParameters(tls.serverParameters());
            raw.setSoTimeout(millisUntil(deadline));
            socket.startHandshake();
            // Registered once the first handshake is over, the listener hears only of later ones.
            socket.addHandshakeCompletedListener(event -> {
                onRenegotiation.run();
                closeQuietly(raw);
            });
            return new Start.Secured(socket, Tls.peerCertificates(socket.getSession()));
        } catch (IOException e) {
            boolean late = System.nanoTime() - deadline >= 0; // the watchdog closed it: the read saw a closed socket
            return new Start.Failed(late ? HandshakeFailures.TIMEOUT : HandshakeFailures.reason(e), e);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing a connection refused anyway; nothing more to do
        }
    }

    private static int millisUntil(long deadline) {
        return (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    }
}
