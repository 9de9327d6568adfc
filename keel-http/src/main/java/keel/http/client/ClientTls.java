package keel.http.client;

import keel.core.tls.Tls;
import keel.core.tls.TlsContexts;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;

/**
 * The TLS of a client's {@code https} and {@code wss} connections, made once from its options: from
 * the given context or trust file at once (a bad file fails the client's creation, not a call), from
 * the JDK's default trust store on first use (loading it takes a while: warm-up does it early). Any
 * thread.
 */
final class ClientTls implements Supplier<Tls> {
    private final ClientOptions.Tls settings;
    private volatile Tls tls;

    ClientTls(ClientOptions.Tls settings) {
        this.settings = settings;
        if (settings.context() != null || settings.trust() != null) get();
    }

    @Override
    public Tls get() {
        Tls made = tls;
        if (made != null) return made;
        synchronized (this) {
            if (tls == null) tls = create();
            return tls;
        }
    }

    private Tls create() {
        try {
            SSLContext context = settings.context() != null ? settings.context()
                    : settings.trust() != null ? TlsContexts.client(settings.trust()) : SSLContext.getDefault();
            return Tls.client(context, null, settings.handshakeTimeout(), settings.verifyHostname());
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot set up the client's TLS: " + e.getMessage(), e);
        }
    }
}
