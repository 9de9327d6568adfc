package keel.core.tls;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed EC certificate for {@code localhost} and {@code 127.0.0.1}, made with the JDK's
 * {@code keytool} (the JDK has no public API that signs certificates): the PKCS#12 file and the same
 * material as PEM.
 */
record SelfSigned(Path p12, char[] password, Path certificatePem, Path keyPem) {

    static SelfSigned create(Path dir) throws Exception {
        Path p12 = dir.resolve("self-signed.p12");
        String password = "changeit";
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "san=dns:localhost,ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", p12.toString(), "-storepass", password, "-keypass", password)
                .redirectErrorStream(true).redirectOutput(dir.resolve("keytool.log").toFile()).start();
        if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
            throw new IllegalStateException("keytool failed: " + Files.readString(dir.resolve("keytool.log")));
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(p12)) {
            store.load(in, password.toCharArray());
        }
        Path certificate = Files.writeString(dir.resolve("self-signed.pem"), pem("CERTIFICATE", store.getCertificate("server").getEncoded()));
        PrivateKey key = (PrivateKey) store.getKey("server", password.toCharArray());
        Path keyPem = Files.writeString(dir.resolve("self-signed-key.pem"), pem("PRIVATE KEY", key.getEncoded()));
        return new SelfSigned(p12, password.toCharArray(), certificate, keyPem);
    }

    /** A PEM block with 64-character lines (RFC 7468). */
    static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }
}
