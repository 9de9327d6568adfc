package keel.core.tls;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Builds {@link SSLContext}s from key material on disk: a PEM certificate chain and private key (see
 * {@link Pem}) or a PKCS#12 keystore, and PEM files of trusted certificates. The material goes into an
 * in-memory PKCS#12 {@link KeyStore} behind the JDK's PKIX key and trust manager factories.
 *
 * <p>A trust file of {@code null} means the JDK's default trust store ({@code cacerts}): for a client,
 * the public web PKI; for a server that asks for client certificates, any certificate that store
 * trusts. Read the files once, at start; the contexts are thread-safe and meant to be shared (a client
 * context reused across connections is also what lets TLS sessions resume). Unreadable files fail with
 * an {@link IOException}, wrong content with an {@link IllegalArgumentException}; both name the file.
 */
public final class TlsContexts {
    /** Protects the key only inside the in-memory store; never written anywhere. */
    private static final char[] ENTRY_PASSWORD = "keel".toCharArray();
    /**
     * SunX509 reads the keys once, when the context is made. The PKIX key manager reads its entry from
     * the keystore on every handshake, and a PKCS#12 entry is decrypted each time (PBKDF2): a few
     * milliseconds of CPU per handshake.
     */
    private static final String KEY_MANAGER = "SunX509";

    private TlsContexts() {
    }

    /**
     * A server context presenting {@code certificateChainPem} (the server's certificate first, then
     * the intermediates) with {@code privateKeyPem}, trusting {@code clientTrustPemOrNull} for client
     * certificates. Refuses a key that does not belong to the first certificate.
     */
    public static SSLContext server(Path certificateChainPem, Path privateKeyPem, Path clientTrustPemOrNull) throws IOException {
        return context(keyManagers(certificateChainPem, privateKeyPem), trustManagers(clientTrustPemOrNull));
    }

    /** A server context presenting the private key entry of the PKCS#12 keystore {@code pkcs12}. */
    public static SSLContext server(Path pkcs12, char[] password, Path clientTrustPemOrNull) throws IOException {
        char[] secret = password == null ? new char[0] : password;
        KeyStore store = openKeystore(pkcs12, secret);
        try {
            if (Collections.list(store.aliases()).stream().noneMatch(alias -> isKeyEntry(store, alias))) {
                throw new IllegalArgumentException(pkcs12 + ": the keystore holds no private key entry");
            }
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KEY_MANAGER);
            factory.init(store, secret);
            return context(factory.getKeyManagers(), trustManagers(clientTrustPemOrNull));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(pkcs12 + ": cannot use the keystore's private key (a key password other than the keystore's?): "
                    + e.getMessage(), e);
        }
    }

    /** A client context trusting {@code trustPemOrNull} (null: the JDK's default trust store), presenting no certificate. */
    public static SSLContext client(Path trustPemOrNull) throws IOException {
        return context(null, trustManagers(trustPemOrNull));
    }

    /** A client context trusting exactly {@code certificates} (a server's own chain, for its warm-up). */
    public static SSLContext trusting(List<X509Certificate> certificates) {
        return context(null, trustManagers(certificates, "the given certificates"));
    }

    /** The certificate chain of the first private key entry of the PKCS#12 keystore {@code pkcs12}. */
    public static List<X509Certificate> chain(Path pkcs12, char[] password) throws IOException {
        KeyStore store = openKeystore(pkcs12, password == null ? new char[0] : password);
        try {
            for (String alias : Collections.list(store.aliases())) {
                if (!isKeyEntry(store, alias)) continue;
                return Arrays.stream(store.getCertificateChain(alias)).map(X509Certificate.class::cast).toList();
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(pkcs12 + ": cannot read the keystore's certificate chain: " + e.getMessage(), e);
        }
        throw new IllegalArgumentException(pkcs12 + ": the keystore holds no private key entry");
    }

    private static KeyStore openKeystore(Path pkcs12, char[] secret) throws IOException {
        try (InputStream in = Files.newInputStream(pkcs12)) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, secret);
            return store;
        } catch (IOException e) {
            throw new IOException(pkcs12 + ": cannot open the PKCS#12 keystore: " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(pkcs12 + ": cannot open the PKCS#12 keystore: " + e.getMessage(), e);
        }
    }

    /** A client context for mutual TLS: trusts {@code trustPemOrNull} and presents {@code certificateChainPem} with {@code privateKeyPem}. */
    public static SSLContext client(Path trustPemOrNull, Path certificateChainPem, Path privateKeyPem) throws IOException {
        return context(keyManagers(certificateChainPem, privateKeyPem), trustManagers(trustPemOrNull));
    }

    private static KeyManager[] keyManagers(Path chainPem, Path keyPem) throws IOException {
        List<X509Certificate> chain = Pem.certificates(chainPem);
        PrivateKey key = Pem.privateKey(keyPem);
        requireMatch(chain.getFirst(), key, chainPem, keyPem);
        try {
            KeyStore store = emptyStore();
            store.setKeyEntry("key", key, ENTRY_PASSWORD, chain.toArray(Certificate[]::new));
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KEY_MANAGER);
            factory.init(store, ENTRY_PASSWORD);
            return factory.getKeyManagers();
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(keyPem + ": cannot use this key with " + chainPem + ": " + e.getMessage(), e);
        }
    }

    private static TrustManager[] trustManagers(Path trustPem) throws IOException {
        if (trustPem == null) return null; // SSLContext.init then uses the JDK's default trust managers
        return trustManagers(Pem.certificates(trustPem), trustPem.toString());
    }

    private static TrustManager[] trustManagers(List<X509Certificate> trusted, String source) {
        try {
            KeyStore store = emptyStore();
            for (int i = 0; i < trusted.size(); i++) store.setCertificateEntry("trusted-" + i, trusted.get(i));
            TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
            factory.init(store);
            return factory.getTrustManagers();
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException(source + ": cannot trust these certificates: " + e.getMessage(), e);
        }
    }

    private static SSLContext context(KeyManager[] keyManagers, TrustManager[] trustManagers) {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers, trustManagers, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot create a TLS context", e);
        }
    }

    private static KeyStore emptyStore() throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        return store;
    }

    private static boolean isKeyEntry(KeyStore store, String alias) {
        try {
            return store.isKeyEntry(alias);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /**
     * A key that does not belong to the certificate would only fail later, in every handshake, with a
     * vague alert: sign a few bytes with it and check them with the certificate's public key now.
     */
    private static void requireMatch(X509Certificate leaf, PrivateKey key, Path chainPem, Path keyPem) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "EdDSA", "Ed25519", "Ed448" -> "EdDSA";
            default -> null; // RSASSA-PSS and rarer keys: the handshake will tell
        };
        if (algorithm == null) return;
        byte[] probe = "keel key check".getBytes(StandardCharsets.US_ASCII);
        boolean matches;
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(leaf.getPublicKey());
            verifier.update(probe);
            matches = verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            matches = false;
        }
        if (!matches) {
            throw new IllegalArgumentException(keyPem + ": this private key does not belong to the first certificate of " + chainPem
                    + " (" + leaf.getSubjectX500Principal().getName() + ")");
        }
    }
}
