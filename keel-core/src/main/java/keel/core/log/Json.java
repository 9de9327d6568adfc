package keel.core.log;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Writes JSON values into a {@link StringBuilder}, for log lines. Strings are escaped per RFC 8259
 * §7, and every character outside printable ASCII is written as {@code \\uXXXX}, so a line is plain
 * ASCII: valid JSON whatever charset the stream it goes to encodes with, and never split by a line
 * break inside a value. Stateless; any thread.
 */
public final class Json {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Json() {
    }

    /** Appends {@code text} as a quoted JSON string ({@code null} as {@code null}); returns {@code out}. */
    public static StringBuilder appendString(StringBuilder out, CharSequence text) {
        if (text == null) return out.append("null");
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c >= 0x20 && c < 0x7f) out.append(c);
                    else out.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xf]).append(HEX[(c >> 4) & 0xf]).append(HEX[c & 0xf]);
                }
            }
        }
        return out.append('"');
    }

    /**
     * Appends {@code value}: integers, finite decimals and booleans as JSON numbers and literals,
     * {@code null} as {@code null}, anything else as the string of its {@code toString()}.
     */
    public static StringBuilder appendValue(StringBuilder out, Object value) {
        return switch (value) {
            case null -> out.append("null");
            case Integer n -> out.append(n.intValue());
            case Long n -> out.append(n.longValue());
            case Short n -> out.append(n.shortValue());
            case Byte n -> out.append(n.byteValue());
            case BigInteger n -> out.append(n);
            case BigDecimal n -> out.append(n);
            case Double n when Double.isFinite(n) -> out.append(n.doubleValue());
            case Float n when Float.isFinite(n) -> out.append(n.floatValue());
            case Boolean b -> out.append(b.booleanValue());
            default -> appendString(out, String.valueOf(value));
        };
    }

    /** Appends {@code ,"name":value} (a member after the first); returns {@code out}. */
    public static StringBuilder appendMember(StringBuilder out, String name, Object value) {
        appendString(out.append(','), name).append(':');
        return appendValue(out, value);
    }
}
