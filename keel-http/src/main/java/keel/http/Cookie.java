package keel.http;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * A cookie to set, as one {@code Set-Cookie} field (RFC 6265 §4.1): {@link Response#cookie} adds it.
 * Built with {@link #builder}; the constructor refuses, with IllegalArgumentException, a name that is
 * not a token, a value outside cookie-octets (optionally in double quotes), a path or domain holding
 * {@code ;} or a control character, a negative or fractional {@code maxAge}, and {@code SameSite=None}
 * without {@code Secure} (browsers drop such a cookie). An attribute left null is left out.
 *
 * @param path     the paths the browser sends the cookie to ({@code /}: the whole site); null: the request's directory
 * @param domain   the host, with its subdomains, the browser sends it to; null: the request's host alone
 * @param maxAge   how long the browser keeps it, in whole seconds ({@link Duration#ZERO} deletes it); null: for its session
 * @param secure   whether the browser sends it over https only
 * @param httpOnly whether it stays hidden from the page's scripts
 * @param sameSite whether the browser sends it with cross-site requests; {@link SameSite#NONE} requires {@code secure}
 */
public record Cookie(String name, String value, String path, String domain, Duration maxAge,
                     boolean secure, boolean httpOnly, SameSite sameSite) {

    /** The {@code SameSite} attribute: whether the browser sends the cookie with cross-site requests. */
    public enum SameSite { STRICT, LAX, NONE }

    public Cookie {
        if (name.isEmpty()) throw new IllegalArgumentException("empty cookie name");
        check("name", name, c -> c > ' ' && c < 0x7f && "\"(),/:;<=>?@[\\]{}".indexOf(c) < 0);
        check("value", unquoted(value), c -> c > ' ' && c < 0x7f && c != '"' && c != ',' && c != ';' && c != '\\');
        if (path != null) check("path", path, Cookie::isAttributeChar);
        if (domain != null) check("domain", domain, Cookie::isAttributeChar);
        if (maxAge != null && (maxAge.isNegative() || maxAge.getNano() != 0)) {
            throw new IllegalArgumentException("cookie maxAge must be whole seconds, zero (deletes the cookie) or more: " + maxAge);
        }
        if (sameSite == SameSite.NONE && !secure) throw new IllegalArgumentException("SameSite=None requires secure(true)");
    }

    /** A builder for the cookie {@code name=value}; {@code value} may be empty. */
    public static Builder builder(String name, String value) {
        return new Builder(name, value);
    }

    /** The {@code Set-Cookie} field value: {@code name=value} and the attributes that are set. */
    public String headerValue() {
        StringBuilder field = new StringBuilder(name).append('=').append(value);
        if (path != null) field.append("; Path=").append(path);
        if (domain != null) field.append("; Domain=").append(domain);
        if (maxAge != null) field.append("; Max-Age=").append(maxAge.toSeconds());
        if (secure) field.append("; Secure");
        if (httpOnly) field.append("; HttpOnly");
        if (sameSite != null) field.append("; SameSite=").append(switch (sameSite) { case STRICT -> "Strict"; case LAX -> "Lax"; case NONE -> "None"; });
        return field.toString();
    }

    /**
     * The cookies of a request's {@code Cookie} fields, every field in order (RFC 6265 §5.4): pairs
     * split at {@code ;}, whitespace around them and one pair of double quotes around a value
     * removed. A pair without {@code =} or without a name is skipped; a name sent again keeps its first value.
     */
    static Map<String, String> parse(Headers headers) {
        Map<String, String> cookies = new LinkedHashMap<>();
        for (int i = 0; i < headers.size(); i++) {
            if (!headers.name(i).equalsIgnoreCase("Cookie")) continue;
            for (String pair : headers.value(i).split(";")) {
                int equals = pair.indexOf('=');
                String name = equals < 0 ? "" : pair.substring(0, equals).strip();
                if (name.isEmpty()) continue;
                cookies.putIfAbsent(name, unquoted(pair.substring(equals + 1).strip()));
            }
        }
        return cookies.isEmpty() ? Map.of() : Collections.unmodifiableMap(cookies);
    }

    /** {@code value} without one pair of double quotes around it (RFC 6265 §4.1.1 allows them). */
    private static String unquoted(String value) {
        boolean quoted = value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"");
        return quoted ? value.substring(1, value.length() - 1) : value;
    }

    /** RFC 6265 §4.1.1 path-value and (leniently) domain-value: any CHAR except controls and {@code ;}. */
    private static boolean isAttributeChar(int c) {
        return c >= ' ' && c < 0x7f && c != ';';
    }

    private static void check(String what, String text, IntPredicate allowed) {
        for (int i = 0; i < text.length(); i++) {
            if (!allowed.test(text.charAt(i))) {
                throw new IllegalArgumentException("invalid character " + String.format("0x%02x", (int) text.charAt(i))
                        + " in cookie " + what + " (RFC 6265 §4.1.1): " + text.replace("\r", "\\r").replace("\n", "\\n"));
            }
        }
    }

    /** Collects a cookie's attributes, each setter named after its component; {@link #build()} validates them. */
    public static final class Builder {
        private final String name;
        private final String value;
        private String path;
        private String domain;
        private Duration maxAge;
        private boolean secure;
        private boolean httpOnly;
        private SameSite sameSite;

        private Builder(String name, String value) {
            this.name = name;
            this.value = value;
        }

        public Builder path(String path) { this.path = path; return this; }
        public Builder domain(String domain) { this.domain = domain; return this; }
        public Builder maxAge(Duration maxAge) { this.maxAge = maxAge; return this; }
        public Builder secure(boolean secure) { this.secure = secure; return this; }
        public Builder httpOnly(boolean httpOnly) { this.httpOnly = httpOnly; return this; }
        public Builder sameSite(SameSite sameSite) { this.sameSite = sameSite; return this; }

        public Cookie build() {
            return new Cookie(name, value, path, domain, maxAge, secure, httpOnly, sameSite);
        }
    }
}
