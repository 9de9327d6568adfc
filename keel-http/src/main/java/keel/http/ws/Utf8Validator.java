package keel.http.ws;

/**
 * Validates UTF-8 incrementally (RFC 3629): bytes may arrive in any number of pieces, a code point
 * may be split between them, and the state carries over. Overlong forms, surrogates and code points
 * past U+10FFFF are refused, as {@code String} decoding would silently replace them.
 */
final class Utf8Validator {
    /** Continuation bytes still expected for the current code point. */
    private int remaining;
    /** The range allowed for the next continuation byte (narrower right after some lead bytes). */
    private int lower = 0x80;
    private int upper = 0xBF;

    /** Feeds bytes; false as soon as they cannot be UTF-8 (the validator is then spent). */
    boolean feed(byte[] bytes, int offset, int length) {
        for (int i = offset, end = offset + length; i < end; i++) {
            int b = bytes[i] & 0xFF;
            if (remaining == 0) {
                if (b < 0x80) continue;
                if (!lead(b)) return false;
            } else {
                if (b < lower || b > upper) return false;
                lower = 0x80;
                upper = 0xBF;
                remaining--;
            }
        }
        return true;
    }

    private boolean lead(int b) {
        lower = 0x80;
        upper = 0xBF;
        if (b >= 0xC2 && b <= 0xDF) {
            remaining = 1;
        } else if (b >= 0xE0 && b <= 0xEF) {
            remaining = 2;
            if (b == 0xE0) lower = 0xA0; // no overlong three-byte forms
            if (b == 0xED) upper = 0x9F; // no surrogates
        } else if (b >= 0xF0 && b <= 0xF4) {
            remaining = 3;
            if (b == 0xF0) lower = 0x90; // no overlong four-byte forms
            if (b == 0xF4) upper = 0x8F; // nothing past U+10FFFF
        } else {
            return false;
        }
        return true;
    }

    /** True when the bytes so far end on a code point boundary. */
    boolean isComplete() {
        return remaining == 0;
    }

    void reset() {
        remaining = 0;
        lower = 0x80;
        upper = 0xBF;
    }

    static boolean isValid(byte[] bytes, int offset, int length) {
        Utf8Validator validator = new Utf8Validator();
        return validator.feed(bytes, offset, length) && validator.isComplete();
    }
}
