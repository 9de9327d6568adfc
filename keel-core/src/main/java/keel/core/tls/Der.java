package keel.core.tls;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Just enough DER (ITU-T X.690) to turn the traditional OpenSSL key formats into PKCS#8: read the
 * elements of a structure, and write a tag-length-value. Single-byte tags and definite lengths only,
 * which is all DER allows for these structures.
 */
final class Der {
    static final int INTEGER = 0x02;
    static final int OCTET_STRING = 0x04;
    static final int NULL = 0x05;
    static final int OID = 0x06;
    static final int SEQUENCE = 0x30;
    /** {@code [0]} constructed: the curve parameters of a SEC1 key. */
    static final int CONTEXT_0 = 0xA0;

    /** One element: {@code bytes[start..end)} is the whole encoding, {@code bytes[contentStart..end)} its value. */
    record Element(int tag, byte[] bytes, int start, int contentStart, int end) {
        byte[] encoded() {
            return Arrays.copyOfRange(bytes, start, end);
        }

        byte[] content() {
            return Arrays.copyOfRange(bytes, contentStart, end);
        }

        /** The elements inside a constructed element (a SEQUENCE, a {@code [0]}). */
        List<Element> children() {
            return Der.elements(bytes, contentStart, end);
        }
    }

    private Der() {
    }

    /** The consecutive elements in {@code bytes[from..to)}; {@link IllegalArgumentException} when they do not parse. */
    static List<Element> elements(byte[] bytes, int from, int to) {
        List<Element> elements = new ArrayList<>();
        int at = from;
        while (at < to) {
            Element element = element(bytes, at, to);
            elements.add(element);
            at = element.end();
        }
        return elements;
    }

    /** The single element that {@code bytes} holds. */
    static Element single(byte[] bytes) {
        Element element = element(bytes, 0, bytes.length);
        if (element.end() != bytes.length) throw new IllegalArgumentException("trailing bytes after the DER structure");
        return element;
    }

    private static Element element(byte[] bytes, int start, int limit) {
        if (limit - start < 2) throw new IllegalArgumentException("truncated DER");
        int tag = bytes[start] & 0xFF;
        if ((tag & 0x1F) == 0x1F) throw new IllegalArgumentException("multi-byte DER tags are not supported");
        int first = bytes[start + 1] & 0xFF;
        int at = start + 2;
        long length;
        if (first < 0x80) {
            length = first;
        } else {
            int count = first & 0x7F;
            if (count == 0 || count > 4 || at + count > limit) throw new IllegalArgumentException("bad DER length");
            length = 0;
            for (int i = 0; i < count; i++) length = (length << 8) | (bytes[at++] & 0xFF);
        }
        if (length > limit - at) throw new IllegalArgumentException("truncated DER");
        return new Element(tag, bytes, start, at, at + (int) length);
    }

    /** Tag, length, then {@code parts} one after the other. */
    static byte[] tlv(int tag, byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) length += part.length;
        ByteArrayOutputStream out = new ByteArrayOutputStream(length + 6);
        out.write(tag);
        if (length < 0x80) {
            out.write(length);
        } else {
            int count = (32 - Integer.numberOfLeadingZeros(length) + 7) / 8;
            out.write(0x80 | count);
            for (int i = count - 1; i >= 0; i--) out.write(length >>> (8 * i));
        }
        for (byte[] part : parts) out.writeBytes(part);
        return out.toByteArray();
    }
}
