package keel.http.codec;

/** Character classes and small number grammars of RFC 9110 / RFC 9112. */
public final class Tokens {
    private static final boolean[] TCHAR = new boolean[128];

    static {
        for (char c = '0'; c <= '9'; c++) TCHAR[c] = true;
        for (char c = 'a'; c <= 'z'; c++) TCHAR[c] = true;
        for (char c = 'A'; c <= 'Z'; c++) TCHAR[c] = true;
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) TCHAR[c] = true;
    }

    /** Field names most requests carry, shared instead of allocated per request. */
    private static final String[] COMMON_NAMES = {"Host", "host", "Accept", "accept", "Connection", "connection",
            "User-Agent", "user-agent", "Content-Type", "content-type", "Content-Length", "content-length",
            "Accept-Encoding", "accept-encoding", "Transfer-Encoding", "transfer-encoding", "Expect", "expect"};

    private Tokens() {
    }

    /** The field name in {@code a[start..end)}: a shared constant when it is a common one, exactly as sent. */
    static String fieldName(byte[] a, int start, int end) {
        int length = end - start;
        for (String common : COMMON_NAMES) {
            if (common.length() != length || common.charAt(0) != a[start]) continue;
            int i = 1;
            while (i < length && common.charAt(i) == a[start + i]) i++;
            if (i == length) return common;
        }
        return new String(a, start, length, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** RFC 9110 §5.6.2 token character. */
    static boolean isTchar(byte b) {
        return b > 0 && TCHAR[b];
    }

    /** RFC 9110 §8.6: {@code 1*DIGIT}; at most 18 digits so the value fits a long. */
    static long contentLength(String value) {
        int length = value.length();
        if (length == 0 || length > 18) throw new BadMessage("invalid Content-Length");
        long n = 0;
        for (int i = 0; i < length; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') throw new BadMessage("invalid Content-Length");
            n = n * 10 + (c - '0');
        }
        return n;
    }

    /** RFC 9112 §7.1: {@code chunk-size [ chunk-ext ]}; extensions are skipped. */
    static long chunkSize(byte[] a, int start, int end) {
        long size = 0;
        int i = start;
        for (; i < end; i++) {
            int digit = Character.digit(a[i], 16);
            if (digit < 0) break;
            if (i - start == 15) throw new BadMessage("chunk size too large");
            size = size << 4 | digit;
        }
        if (i == start) throw new BadMessage("invalid chunk size");
        while (i < end && (a[i] == ' ' || a[i] == '\t')) i++;
        if (i < end && a[i] != ';') throw new BadMessage("invalid chunk size");
        return size;
    }

    /** RFC 9112 §2.3 {@code HTTP-version} in {@code a[start..end)}: true for HTTP/1.1, false for HTTP/1.0; 505 for another version. */
    static boolean isHttp11(byte[] a, int start, int end) {
        if (end - start != 8 || !matches(a, start, "HTTP/") || !isDigit(a[start + 5]) || a[start + 6] != '.' || !isDigit(a[start + 7])) {
            throw new BadMessage("malformed HTTP version");
        }
        if (a[start + 5] == '1' && a[start + 7] == '1') return true;
        if (a[start + 5] == '1' && a[start + 7] == '0') return false;
        throw new BadMessage(505, "HTTP version not supported");
    }

    static int indexOf(byte[] a, int from, int to, byte b) {
        for (int i = from; i < to; i++) if (a[i] == b) return i;
        return -1;
    }

    /** True when {@code a} holds the ASCII text {@code ascii} at {@code start}. */
    static boolean matches(byte[] a, int start, String ascii) {
        for (int i = 0; i < ascii.length(); i++) if (a[start + i] != ascii.charAt(i)) return false;
        return true;
    }

    static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    /**
     * RFC 9112 §3.2 with RFC 3986 §3.2.2–3.2.3: {@code uri-host [ ":" port ]}, where the host is a
     * reg-name (unreserved, sub-delims, percent-encoded octets; IPv4 addresses are reg-names by these
     * characters), or an IP literal in brackets; the port is digits. An empty value is allowed (a
     * target without an authority).
     */
    public static boolean isHost(String value) {
        int length = value.length();
        int i = 0;
        if (length > 0 && value.charAt(0) == '[') {
            int close = value.indexOf(']');
            if (close < 2) return false;
            for (i = 1; i < close; i++) {
                char c = value.charAt(i);
                if (!(isHexDigit(c) || c == ':' || c == '.' || c == 'v' || c == 'V')) return false;
            }
            i = close + 1;
        } else {
            for (; i < length && value.charAt(i) != ':'; i++) {
                char c = value.charAt(i);
                if (c == '%') {
                    if (i + 2 >= length || !isHexDigit(value.charAt(i + 1)) || !isHexDigit(value.charAt(i + 2))) return false;
                    i += 2;
                } else if (!isRegNameChar(c)) {
                    return false;
                }
            }
        }
        if (i == length) return true;
        if (value.charAt(i) != ':' || length - i - 1 > 5) return false;
        for (i++; i < length; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') return false;
        }
        return true;
    }

    private static boolean isHexDigit(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    /** RFC 3986 unreserved and sub-delims. */
    private static boolean isRegNameChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~!$&'()*+,;=".indexOf(c) >= 0;
    }
}
