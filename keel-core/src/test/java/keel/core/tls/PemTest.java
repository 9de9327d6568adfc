package keel.core.tls;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class PemTest {
    @TempDir
    Path dir;

    private static KeyPair rsa() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair();
    }

    private static KeyPair ec() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    private Path write(String name, String label, byte[] der) throws IOException {
        return Files.writeString(dir.resolve(name), SelfSigned.pem(label, der));
    }

    @Test
    void readsPkcs8RsaEcAndEd25519Keys() throws Exception {
        for (KeyPair pair : List.of(rsa(), ec(), KeyPairGenerator.getInstance("Ed25519").generateKeyPair())) {
            PrivateKey key = pair.getPrivate();
            Path file = write(key.getAlgorithm() + ".pem", "PRIVATE KEY", key.getEncoded());
            assertThat(Pem.privateKey(file)).as(key.getAlgorithm()).isEqualTo(key);
        }
    }

    @Test
    void readsAPkcs1RsaKey() throws Exception {
        PrivateKey key = rsa().getPrivate();
        byte[] pkcs1 = Der.single(key.getEncoded()).children().get(2).content(); // PrivateKeyInfo.privateKey
        Path file = write("rsa.pem", "RSA PRIVATE KEY", pkcs1);
        assertThat(Pem.privateKey(file)).isEqualTo(key);
    }

    @Test
    void readsASec1EcKeyThatNamesItsCurve() throws Exception {
        PrivateKey key = ec().getPrivate();
        List<Der.Element> info = Der.single(key.getEncoded()).children();
        byte[] curve = info.get(1).children().get(1).encoded();
        // What 'openssl ec' writes: version, key, [0] curve, then (optionally) [1] public key.
        List<byte[]> fields = new ArrayList<>();
        List<Der.Element> jdkSec1 = Der.single(info.get(2).content()).children();
        fields.add(jdkSec1.get(0).encoded());
        fields.add(jdkSec1.get(1).encoded());
        fields.add(Der.tlv(Der.CONTEXT_0, curve));
        for (Der.Element rest : jdkSec1.subList(2, jdkSec1.size())) fields.add(rest.encoded());
        Path file = write("ec.pem", "EC PRIVATE KEY", Der.tlv(Der.SEQUENCE, fields.toArray(byte[][]::new)));
        assertThat(Pem.privateKey(file)).isEqualTo(key);

        byte[] withoutCurve = Der.tlv(Der.SEQUENCE, jdkSec1.get(0).encoded(), jdkSec1.get(1).encoded());
        Path bare = write("bare.pem", "EC PRIVATE KEY", withoutCurve);
        assertThatThrownBy(() -> Pem.privateKey(bare)).hasMessageContaining(bare.toString()).hasMessageContaining("openssl pkcs8 -topk8 -nocrypt");
    }

    @Test
    void readsTheTraditionalKeysOpensslWrites() throws Exception {
        assumeTrue(run("openssl", "version"), "openssl is not installed");
        Path rsa = dir.resolve("openssl-rsa.pem");
        Path ec = dir.resolve("openssl-ec.pem");
        assertThat(run("openssl", "genrsa", "-traditional", "-out", rsa.toString(), "2048")).isTrue();
        assertThat(run("openssl", "ecparam", "-genkey", "-name", "prime256v1", "-noout", "-out", ec.toString())).isTrue();
        assertThat(Files.readString(rsa)).contains("BEGIN RSA PRIVATE KEY");
        assertThat(Files.readString(ec)).contains("BEGIN EC PRIVATE KEY");
        assertThat(Pem.privateKey(rsa).getAlgorithm()).isEqualTo("RSA");
        assertThat(Pem.privateKey(ec).getAlgorithm()).isEqualTo("EC");
    }

    private boolean run(String... command) throws Exception {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("out.txt").toFile()).start();
            return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException notInstalled) {
            return false;
        }
    }

    @Test
    void aFileWithoutAPemBlockIsRefusedNamingTheFile() throws Exception {
        Path file = Files.writeString(dir.resolve("notes.txt"), "not a certificate\n");
        assertThatThrownBy(() -> Pem.certificates(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("BEGIN CERTIFICATE");
        assertThatThrownBy(() -> Pem.privateKey(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("BEGIN PRIVATE KEY");
    }

    @Test
    void aKeyFileGivenAsCertificatesSaysWhatItHolds() throws Exception {
        Path file = write("key.pem", "PRIVATE KEY", ec().getPrivate().getEncoded());
        assertThatThrownBy(() -> Pem.certificates(file)).hasMessageContaining(file.toString()).hasMessageContaining("found: PRIVATE KEY");
    }

    @Test
    void anEncryptedKeyIsRefusedWithTheCommandThatDecryptsIt() throws Exception {
        Path file = write("encrypted.pem", "ENCRYPTED PRIVATE KEY", new byte[]{0x30, 0x00});
        assertThatThrownBy(() -> Pem.privateKey(file)).hasMessageContaining(file.toString()).hasMessageContaining("encrypted")
                .hasMessageContaining("openssl pkcs8 -topk8 -nocrypt");
    }

    @Test
    void aMissingFileFailsWithAnIoExceptionNamingIt() {
        Path file = dir.resolve("absent.pem");
        assertThatThrownBy(() -> Pem.certificates(file)).isInstanceOf(IOException.class).hasMessageContaining(file.toString());
    }

    @Test
    void readsEveryCertificateOfAChainInOrder() throws Exception {
        SelfSigned material = SelfSigned.create(dir);
        String one = Files.readString(material.certificatePem());
        Path chain = Files.writeString(dir.resolve("chain.pem"), one + "\n" + one);
        assertThat(Pem.certificates(chain)).hasSize(2).allMatch(c -> c.getSubjectX500Principal().getName().equals("CN=localhost"));
    }
}
