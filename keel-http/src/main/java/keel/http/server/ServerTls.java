package keel.http.server;

import keel.core.tls.Tls;
import keel.core.tls.TlsContexts;

import javax.net.ssl.SSLContext;
import java.io.IOException;

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
}
