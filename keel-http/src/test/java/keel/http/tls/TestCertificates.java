package keel.http.tls;

import keel.core.tls.TlsContexts;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * TLS key material for tests, made once per JVM (on first use, by any thread) in a temporary directory
 * with the JDK's {@code keytool}: a test CA; certificates it signs for {@code localhost} and
 * {@code 127.0.0.1}, for the wrong host ({@code wrong.example}) and for a client (mutual TLS); and a
 * self-signed certificate nobody trusts. Every key is EC P-256 (fast to make and to use). Each comes
 * as a PEM chain (the certificate, then the CA's) and a PEM PKCS#8 key; the server's also as PKCS#12.
 */
public final class TestCertificates {
    private static final String PASSWORD = "changeit";
    private static volatile Material material;

    private record Material(Path dir, Path caPem, Path serverCertPem, Path serverKeyPem, Path serverP12,
                            Path wrongHostCertPem, Path wrongHostKeyPem, Path clientCertPem, Path clientKeyPem,
                            Path untrustedCertPem, Path untrustedKeyPem) {
    }

    private TestCertificates() {
    }

    public static Path caPem() {
        return material().caPem();
    }

    /** The server's certificate (SAN {@code dns:localhost, ip:127.0.0.1}) followed by the CA's. */
    public static Path serverCertPem() {
        return material().serverCertPem();
    }

    public static Path serverKeyPem() {
        return material().serverKeyPem();
    }

    /** The server's key and chain as a PKCS#12 keystore, password {@link #password()}. */
    public static Path serverP12() {
        return material().serverP12();
    }

    public static String password() {
        return PASSWORD;
    }

    /** Signed by the CA for {@code wrong.example} only. */
    public static Path wrongHostCertPem() {
        return material().wrongHostCertPem();
    }

    public static Path wrongHostKeyPem() {
        return material().wrongHostKeyPem();
    }

    /** A client certificate ({@code CN=Keel Test Client}) signed by the CA. */
    public static Path clientCertPem() {
        return material().clientCertPem();
    }

    public static Path clientKeyPem() {
        return material().clientKeyPem();
    }

    /** Self-signed for {@code localhost} and {@code 127.0.0.1}: no test context trusts it. */
    public static Path untrustedCertPem() {
        return material().untrustedCertPem();
    }

    public static Path untrustedKeyPem() {
        return material().untrustedKeyPem();
    }

    /** A client context (for the JDK {@code HttpClient}, say) trusting the test CA only. */
    public static SSLContext clientContextTrustingCa() {
        try {
            return TlsContexts.client(caPem());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A client context trusting the test CA and presenting the client certificate. */
    public static SSLContext clientContextWithClientCert() {
        try {
            return TlsContexts.client(caPem(), clientCertPem(), clientKeyPem());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Material material() {
        Material made = material;
        if (made != null) return made;
        synchronized (TestCertificates.class) {
            if (material == null) {
                try {
                    material = make(Files.createTempDirectory("keel-test-certificates"));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while making test certificates", e);
                }
            }
            return material;
        }
    }

    /** Five keytool runs into one keystore (each signed one names the CA with {@code -signer}), then PEM and PKCS#12 files from it. */
    private static Material make(Path dir) throws IOException, InterruptedException {
        Path all = dir.resolve("all.p12");
        keytool(dir, all, "ca", "CN=Keel Test CA", "-ext", "bc:c");
        keytool(dir, all, "server", "CN=localhost", "-ext", "san=dns:localhost,ip:127.0.0.1", "-signer", "ca");
        keytool(dir, all, "wrong-host", "CN=wrong.example", "-ext", "san=dns:wrong.example", "-signer", "ca");
        keytool(dir, all, "client", "CN=Keel Test Client", "-signer", "ca");
        keytool(dir, all, "untrusted", "CN=localhost", "-ext", "san=dns:localhost,ip:127.0.0.1");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(dir)));
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            try (var in = Files.newInputStream(all)) {
                store.load(in, PASSWORD.toCharArray());
            }
            Path serverP12 = dir.resolve("server.p12");
            KeyStore server = KeyStore.getInstance("PKCS12");
            server.load(null, null);
            server.setKeyEntry("server", store.getKey("server", PASSWORD.toCharArray()), PASSWORD.toCharArray(), store.getCertificateChain("server"));
            try (OutputStream out = Files.newOutputStream(serverP12)) {
                server.store(out, PASSWORD.toCharArray());
            }
            return new Material(dir, writeCertificates(dir, "ca", store), writeCertificates(dir, "server", store), writeKey(dir, "server", store),
                    serverP12, writeCertificates(dir, "wrong-host", store), writeKey(dir, "wrong-host", store),
                    writeCertificates(dir, "client", store), writeKey(dir, "client", store),
                    writeCertificates(dir, "untrusted", store), writeKey(dir, "untrusted", store));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the keystore keytool made", e);
        }
    }

    private static void keytool(Path dir, Path keystore, String alias, String subject, String... extra) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-J-XX:TieredStopAtLevel=1", "-genkeypair", "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", subject, "-validity", "30", "-storetype", "PKCS12", "-keystore", keystore.toString(),
                "-storepass", PASSWORD, "-keypass", PASSWORD));
        command.addAll(List.of(extra));
        Path log = dir.resolve("keytool-" + alias + ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException("keytool failed for " + alias + ": " + Files.readString(log));
        }
    }

    private static Path writeCertificates(Path dir, String alias, KeyStore store) throws IOException, java.security.GeneralSecurityException {
        StringBuilder pem = new StringBuilder();
        Certificate[] chain = store.isKeyEntry(alias) ? store.getCertificateChain(alias) : new Certificate[]{store.getCertificate(alias)};
        for (Certificate certificate : chain) pem.append(pem("CERTIFICATE", certificate.getEncoded()));
        return Files.writeString(dir.resolve(alias + ".pem"), pem);
    }

    private static Path writeKey(Path dir, String alias, KeyStore store) throws IOException, java.security.GeneralSecurityException {
        PrivateKey key = (PrivateKey) store.getKey(alias, PASSWORD.toCharArray());
        return Files.writeString(dir.resolve(alias + "-key.pem"), pem("PRIVATE KEY", key.getEncoded()));
    }

    private static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
