package keel.http.server;

import keel.core.tls.Pem;
import keel.core.tls.Tls;
import keel.core.tls.TlsContexts;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.security.cert.X509Certificate;
import java.util.List;

/** Turns the {@code server.tls.*} options into the {@link Tls} every connection of a server uses. */
final class ServerTls {
    private ServerTls() {
    }

    /**
     * Reads the key material once and builds the server's TLS; null when TLS is off. Runs when the
     * server starts: a file that cannot be read or used fails here, with a message naming it.
     */
    static Tls create(ServerOptions.Tls options) throws IOException {
        if (!options.enabled()) return null;
        SSLContext context;
        try {
            if (options.keystore() != null) {
                char[] password = options.keystorePassword() == null ? new char[0] : options.keystorePassword().toCharArray();
                context = TlsContexts.server(options.keystore(), password, options.clientTrust());
            } else {
                context = TlsContexts.server(options.certificate(), options.privateKey(), options.clientTrust());
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new IOException("cannot start TLS (server.tls.*): " + e.getMessage(), e);
        }
        return Tls.server(context, options.protocols(), options.clientAuth(), options.handshakeTimeout());
    }

    /** A client context that trusts the server's own certificate chain: the warm-up client's, to call the warm-up server over TLS. */
    static SSLContext trustingOwnCertificate(ServerOptions.Tls options) throws IOException {
        List<X509Certificate> chain = options.keystore() != null
                ? TlsContexts.chain(options.keystore(), options.keystorePassword() == null ? null : options.keystorePassword().toCharArray())
                : Pem.certificates(options.certificate());
        return TlsContexts.trusting(chain);
    }
}
