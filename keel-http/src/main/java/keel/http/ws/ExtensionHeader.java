package keel.http.ws;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses {@code Sec-WebSocket-Extensions} field values (RFC 6455 §9.1) into their extensions, in
 * order, each with its parameters in order:
 *
 * <pre>
 *   extension-list = 1#extension
 *   extension      = token *( OWS ";" OWS extension-param )
 *   extension-param = token [ OWS "=" OWS ( token / quoted-string ) ]
 * </pre>
 *
 * Empty list elements are skipped (RFC 9110 §5.6.1). A quoted value is unescaped. Pure; a syntax
 * error throws {@link IllegalArgumentException} that says where. The input is a request head, so it
 * is already bounded by the head size limit.
 */
final class ExtensionHeader {
    /** One parameter; {@code value} is null when the parameter has none. */
    record Param(String name, String value) {
    }

    record Extension(String name, List<Param> params) {
    }

    private final String text;
    private int at;

    private ExtensionHeader(String text) {
        this.text = text;
    }

    /** The extensions of every field value, in order. */
    static List<Extension> parse(List<String> fieldValues) {
        List<Extension> extensions = new ArrayList<>(2);
        for (String value : fieldValues) new ExtensionHeader(value).list(extensions);
        return extensions;
    }

    private void list(List<Extension> into) {
        while (true) {
            skipSpace();
            if (at == text.length()) return;
            if (text.charAt(at) == ',') {
                at++;
                continue;
            }
            into.add(extension());
            skipSpace();
            if (at == text.length()) return;
            if (text.charAt(at) != ',') throw malformed("',' or ';' expected");
            at++;
        }
    }

    private Extension extension() {
        String name = token("an extension name");
        List<Param> params = new ArrayList<>(2);
        skipSpace();
        while (at < text.length() && text.charAt(at) == ';') {
            at++;
            skipSpace();
            String param = token("a parameter name");
            skipSpace();
            String value = null;
            if (at < text.length() && text.charAt(at) == '=') {
                at++;
                skipSpace();
                value = at < text.length() && text.charAt(at) == '"' ? quoted() : token("a value");
                skipSpace();
            }
            params.add(new Param(param, value));
        }
        return new Extension(name, List.copyOf(params));
    }

    private String token(String what) {
        int start = at;
        while (at < text.length() && isTokenChar(text.charAt(at))) at++;
        if (at == start) throw malformed(what + " expected");
        return text.substring(start, at);
    }

    /** RFC 9110 §5.6.4: a quoted-string, with its backslash escapes undone. */
    private String quoted() {
        StringBuilder value = new StringBuilder();
        at++; // the opening quote
        while (at < text.length()) {
            char c = text.charAt(at++);
            if (c == '"') return value.toString();
            if (c == '\\') {
                if (at == text.length()) break;
                c = text.charAt(at++);
            } else if (c < 0x20 && c != '\t' || c == 0x7F) {
                throw malformed("control character in a quoted value");
            }
            value.append(c);
        }
        throw malformed("unterminated quoted value");
    }

    private void skipSpace() {
        while (at < text.length() && (text.charAt(at) == ' ' || text.charAt(at) == '\t')) at++;
    }

    private IllegalArgumentException malformed(String problem) {
        String shown = text.length() <= 100 ? text : text.substring(0, 100) + "...";
        return new IllegalArgumentException(problem + " at offset " + at + " of '" + shown + "'");
    }

    /** RFC 9110 §5.6.2 tchar. */
    static boolean isTokenChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }
}
