package keel.http.accesslog;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The request ids of the access log: the client's {@code X-Request-Id} when it is a sane token, else
 * one made here from a random prefix drawn once per server (48 bits, so two servers or two runs
 * practically never share it) and a counter, {@code 5f2a9c01be34-1a}. A made id is its number until
 * it is written out: making one costs a counter increment, never an allocation nor a
 * {@link SecureRandom} call. Any thread.
 */
public final class RequestIds {
    /** The request and response header that carries the id. */
    static final String HEADER = "X-Request-Id";
    /** The longest id taken from a client; a longer one is replaced. */
    public static final int MAX_LENGTH = 128;
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private final String prefix;
    private final AtomicLong counter = new AtomicLong();

    /**
     * The prefix is 48 random bits that need to be unique, not secret: {@link ThreadLocalRandom} (seeded
     * from the clocks) draws them, where a {@link SecureRandom} would load a security provider, about 25 ms
     * of a start.
     */
    RequestIds() {
        this.prefix = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()).substring(4) + "-";
    }

    /** The number of a new id, unique for this server's life (from 1). */
    long next() {
        return counter.incrementAndGet();
    }

    /** What every made id starts with: 12 hex digits and a dash. */
    String prefix() {
        return prefix;
    }

    /** A new made id's text holder, to be {@link Made#set set} to one number after another. */
    Made newMade() {
        return new Made(prefix);
    }

    /**
     * The text of a made id, the prefix then the number in hex, rewritten in place for each new id:
     * no allocation. Confined to one thread; read it before it is set again.
     */
    static final class Made implements CharSequence {
        private final byte[] text;
        private final int prefixLength;
        private int length;

        @SuppressWarnings("deprecation") // getBytes(int, int, byte[], int) copies the ASCII prefix as it is
        private Made(String prefix) {
            this.prefixLength = prefix.length();
            this.text = new byte[prefixLength + 16];
            prefix.getBytes(0, prefixLength, text, 0);
            this.length = prefixLength;
        }

        /** Becomes the id made from {@code number}. */
        Made set(long number) {
            int at = prefixLength;
            for (int shift = (63 - Long.numberOfLeadingZeros(number | 1)) & ~3; shift >= 0; shift -= 4) {
                text[at++] = HEX[(int) (number >>> shift) & 0xf];
            }
            length = at;
            return this;
        }

        /** The text's bytes: the first {@link #length()} of them. */
        byte[] bytes() {
            return text;
        }

        @Override
        public int length() {
            return length;
        }

        @Override
        public char charAt(int index) {
            return (char) text[index];
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return toString().substring(start, end);
        }

        @Override
        public String toString() {
            return new String(text, 0, length, StandardCharsets.US_ASCII);
        }
    }

    /** 1 to {@link #MAX_LENGTH} visible ASCII characters: safe to echo in a header and to write in a log line. */
    static boolean isSane(String id) {
        if (id.isEmpty() || id.length() > MAX_LENGTH) return false;
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c <= ' ' || c >= 0x7f) return false;
        }
        return true;
    }
}
