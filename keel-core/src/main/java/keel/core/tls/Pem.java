package keel.core.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads certificates and private keys from PEM files (RFC 7468), the format {@code openssl} and most
 * certificate authorities hand out.
 *
 * <p>Private keys may be unencrypted PKCS#8 ({@code BEGIN PRIVATE KEY}: RSA, EC, Ed25519/Ed448,
 * RSASSA-PSS), PKCS#1 ({@code BEGIN RSA PRIVATE KEY}) or SEC1 with a named curve
 * ({@code BEGIN EC PRIVATE KEY}). Encrypted keys are refused with the command that decrypts them.
 *
 * <p>A file that cannot be read fails with an {@link IOException}; content that is not what was asked
 * for fails with an {@link IllegalArgumentException}. Both messages name the file. Static methods,
 * any thread.
 */
public final class Pem {
    private static final Pattern BLOCK = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----", Pattern.DOTALL);
    private static final String TO_PKCS8 = "convert it with 'openssl pkcs8 -topk8 -nocrypt -in KEY -out key.pem'";
    private static final byte[] RSA_ENCRYPTION = HexFormat.of().parseHex("06092a864886f70d010101");
    private static final byte[] EC_PUBLIC_KEY = HexFormat.of().parseHex("06072a8648ce3d0201");
    private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "EdDSA", "RSASSA-PSS");

    private record Block(String label, String body) {
    }

    private Pem() {
    }

    /** Every {@code CERTIFICATE} block of {@code file}, in file order (for a chain: the leaf first, then its issuers). */
    public static List<X509Certificate> certificates(Path file) throws IOException {
        List<Block> blocks = blocks(file);
        List<X509Certificate> certificates = new ArrayList<>();
        CertificateFactory factory;
        try {
            factory = CertificateFactory.getInstance("X.509");
        } catch (CertificateException e) {
            throw new IllegalStateException("this JDK has no X.509 certificate factory", e);
        }
        for (Block block : blocks) {
            if (!block.label().equals("CERTIFICATE")) continue;
            try {
                certificates.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(decode(block, file))));
            } catch (CertificateException e) {
                throw new IllegalArgumentException(file + ": certificate " + (certificates.size() + 1) + " is not a valid X.509 certificate: "
                        + e.getMessage(), e);
            }
        }
        if (certificates.isEmpty()) throw new IllegalArgumentException(file + ": no -----BEGIN CERTIFICATE----- block" + found(blocks));
        return List.copyOf(certificates);
    }

    /** The first private key of {@code file}. */
    public static PrivateKey privateKey(Path file) throws IOException {
        List<Block> blocks = blocks(file);
        Block block = blocks.stream().filter(b -> b.label().endsWith("PRIVATE KEY")).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(file + ": no -----BEGIN PRIVATE KEY----- block" + found(blocks)));
        if (block.body().contains(":")) {
            throw new IllegalArgumentException(file + ": the private key is encrypted (it has PEM headers); decrypt it, or " + TO_PKCS8);
        }
        return switch (block.label()) {
            case "PRIVATE KEY" -> pkcs8(decode(block, file), file);
            case "RSA PRIVATE KEY" -> pkcs8(rsaToPkcs8(decode(block, file)), file);
            case "EC PRIVATE KEY" -> pkcs8(ecToPkcs8(decode(block, file), file), file);
            case "ENCRYPTED PRIVATE KEY" -> throw new IllegalArgumentException(file + ": the private key is encrypted; " + TO_PKCS8);
            default -> throw new IllegalArgumentException(file + ": unsupported key format '" + block.label() + "'; " + TO_PKCS8);
        };
    }

    private static List<Block> blocks(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(file.toString(), null, "no such file");
        } catch (AccessDeniedException e) {
            throw new AccessDeniedException(file.toString(), null, "permission denied");
        } catch (IOException e) {
            throw new IOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        List<Block> blocks = new ArrayList<>();
        Matcher matcher = BLOCK.matcher(text);
        while (matcher.find()) blocks.add(new Block(matcher.group(1), matcher.group(2)));
        return blocks;
    }

    private static String found(List<Block> blocks) {
        if (blocks.isEmpty()) return " (not a PEM file?)";
        return " (found: " + String.join(", ", blocks.stream().map(Block::label).distinct().toList()) + ")";
    }

    private static byte[] decode(Block block, Path file) {
        try {
            return Base64.getDecoder().decode(block.body().replaceAll("\\s+", ""));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": the " + block.label() + " block is not valid base64: " + e.getMessage(), e);
        }
    }

    private static PrivateKey pkcs8(byte[] der, Path file) {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException | RuntimeException notThisOne) {
                // the next factory may know the key's algorithm
            }
        }
        throw new IllegalArgumentException(file + ": not a private key of a supported algorithm (tried " + String.join(", ", KEY_ALGORITHMS) + ")");
    }

    /** PKCS#1 {@code RSAPrivateKey} inside a PKCS#8 {@code PrivateKeyInfo} (RFC 5208): version 0, rsaEncryption, the key. */
    static byte[] rsaToPkcs8(byte[] pkcs1) {
        return Der.tlv(Der.SEQUENCE,
                Der.tlv(Der.INTEGER, new byte[]{0}),
                Der.tlv(Der.SEQUENCE, RSA_ENCRYPTION, Der.tlv(Der.NULL)),
                Der.tlv(Der.OCTET_STRING, pkcs1));
    }

    /**
     * SEC1 {@code ECPrivateKey} (RFC 5915) inside a PKCS#8 {@code PrivateKeyInfo}: the curve moves from
     * the key's {@code [0]} parameters to the algorithm identifier.
     */
    static byte[] ecToPkcs8(byte[] sec1, Path file) {
        List<Der.Element> fields;
        try {
            Der.Element key = Der.single(sec1);
            if (key.tag() != Der.SEQUENCE) throw new IllegalArgumentException("not a SEQUENCE");
            fields = key.children();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": not a SEC1 EC private key (" + e.getMessage() + ")", e);
        }
        Der.Element curve = fields.stream().filter(f -> f.tag() == Der.CONTEXT_0).findFirst()
                .flatMap(parameters -> parameters.children().stream().findFirst())
                .filter(parameters -> parameters.tag() == Der.OID)
                .orElseThrow(() -> new IllegalArgumentException(file + ": the EC key names no curve; " + TO_PKCS8));
        List<byte[]> withoutParameters = fields.stream().filter(f -> f.tag() != Der.CONTEXT_0).map(Der.Element::encoded).toList();
        return Der.tlv(Der.SEQUENCE,
                Der.tlv(Der.INTEGER, new byte[]{0}),
                Der.tlv(Der.SEQUENCE, EC_PUBLIC_KEY, curve.encoded()),
                Der.tlv(Der.OCTET_STRING, Der.tlv(Der.SEQUENCE, withoutParameters.toArray(byte[][]::new))));
    }
}
