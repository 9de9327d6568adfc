package keel.http.server;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The request ids of the access log: the client's {@code X-Request-Id} when it is a sane token, else
 * one made here from a random prefix drawn once per server (48 bits, so two servers or two runs
 * practically never share it) and a counter, {@code 5f2a9c01be34-1a}. A made id is its number until
 * it is written out: making one costs a counter increment, never an allocation nor a
 * {@link SecureRandom} call. Any thread.
 */
final class RequestIds {
    /** The request and response header that carries the id. */
    static final String HEADER = "X-Request-Id";
    /** The longest id taken from a client; a longer one is replaced. */
    static final int MAX_LENGTH = 128;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final String prefix;
    private final AtomicLong counter = new AtomicLong();

    RequestIds() {
        byte[] random = new byte[6];
        new SecureRandom().nextBytes(random);
        this.prefix = HexFormat.of().formatHex(random) + "-";
    }

    /** The number of a new id, unique for this server's life (from 1). */
    long next() {
        return counter.incrementAndGet();
    }

    /** What every made id starts with: 12 hex digits and a dash. */
    String prefix() {
        return prefix;
    }

    /** Appends the id made from {@code number}: the prefix, then the number in hex. */
    StringBuilder appendMade(StringBuilder out, long number) {
        out.append(prefix);
        for (int shift = (63 - Long.numberOfLeadingZeros(number | 1)) & ~3; shift >= 0; shift -= 4) {
            out.append(HEX[(int) (number >>> shift) & 0xf]);
        }
        return out;
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
