package keel.http;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An immutable, ordered list of header fields. Names keep the case they were given in; lookups
 * ignore case (RFC 9110 §5.1). Small by design: a request carries a handful of fields, so a linear
 * scan beats hashing.
 */
public final class Headers {
    private static final Headers EMPTY = new Headers(new String[0], 0);

    /** Names at even indexes, values at odd ones. */
    private final String[] fields;
    private final int size;
    /**
     * The fields as "Name: value\r\n" lines, encoded on first use by {@link #wireBytes}. Volatile: a
     * response's headers are often encoded on one loop and reused on others, and a plain field would
     * let another thread see the array before its bytes (allowed on weak memory models such as ARM).
     */
    private volatile byte[] wire;

    private Headers(String[] fields, int size) {
        this.fields = fields;
        this.size = size;
    }

    public static Headers empty() {
        return EMPTY;
    }

    /** Alternating names and values: {@code Headers.of("Content-Type", "text/plain", "X-A", "1")}. */
    public static Headers of(String... namesAndValues) {
        if (namesAndValues.length % 2 != 0) throw new IllegalArgumentException("names and values must pair up");
        return new Headers(namesAndValues.clone(), namesAndValues.length / 2);
    }

    public int size() {
        return size;
    }

    public String name(int index) {
        return fields[index * 2];
    }

    public String value(int index) {
        return fields[index * 2 + 1];
    }

    /** The first value of {@code name}, or null. */
    public String get(String name) {
        for (int i = 0; i < size * 2; i += 2) {
            if (fields[i].equalsIgnoreCase(name)) return fields[i + 1];
        }
        return null;
    }

    public List<String> all(String name) {
        List<String> values = new ArrayList<>(2);
        for (int i = 0; i < size * 2; i += 2) {
            if (fields[i].equalsIgnoreCase(name)) values.add(fields[i + 1]);
        }
        return values;
    }

    /**
     * The fields as they go on the wire ({@code Name: value\r\n} each, ISO-8859-1), leaving out the
     * names {@code skip} refuses. Encoded once per instance, so a shared constant costs one copy per
     * response. Callers must pass the same {@code skip} for a given instance.
     */
    public byte[] wireBytes(java.util.function.Predicate<String> skip) {
        byte[] bytes = wire;
        if (bytes == null) {
            StringBuilder lines = new StringBuilder(size * 32);
            for (int i = 0; i < size; i++) {
                if (skip.test(name(i))) continue;
                lines.append(name(i)).append(": ").append(value(i)).append("\r\n");
            }
            bytes = lines.toString().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            wire = bytes; // two threads may both encode: they produce the same bytes
        }
        return bytes;
    }

    /** A field name as RFC 9110 §5.1 allows it (a token), or IllegalArgumentException. */
    public static String checkName(String name) {
        if (name.isEmpty()) throw new IllegalArgumentException("empty header name");
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c <= ' ' || c >= 0x7f || "\"(),/:;<=>?@[\\]{}".indexOf(c) >= 0) {
                throw new IllegalArgumentException("invalid character in header name: " + name);
            }
        }
        return name;
    }

    /** RFC 9110 §5.5: no CR, LF or NUL in a field value (they would let a value forge fields), or IllegalArgumentException. */
    public static String checkValue(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if ((c < ' ' && c != '\t') || c == 0x7f || c > 0xff) {
                throw new IllegalArgumentException("invalid character in header value: " + value.replace("\r", "\\r").replace("\n", "\\n"));
            }
        }
        return value;
    }

    public boolean contains(String name) {
        return get(name) != null;
    }

    /** A copy without any field named {@code name} (case-insensitive); this instance when there is none. */
    public Headers without(String name) {
        if (!contains(name)) return this;
        Builder kept = new Builder();
        for (int i = 0; i < size; i++) {
            if (!name(i).equalsIgnoreCase(name)) kept.add(name(i), value(i));
        }
        return kept.build();
    }

    /** A copy with one more field at the end. */
    public Headers plus(String name, String value) {
        String[] copy = Arrays.copyOf(fields, size * 2 + 2);
        copy[size * 2] = name;
        copy[size * 2 + 1] = value;
        return new Headers(copy, size + 1);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("[");
        for (int i = 0; i < size; i++) text.append(i == 0 ? "" : ", ").append(name(i)).append(": ").append(value(i));
        return text.append(']').toString();
    }

    /**
     * Collects fields; {@link #build()} copies them out at their exact size, so one builder can be
     * cleared and reused (the parser keeps one per connection).
     */
    public static final class Builder {
        /** Names and values, alternating: room for 4 fields at first (a parser keeps one builder per connection), doubled as needed. */
        private String[] fields = new String[8];
        private int size;

        public Builder clear() {
            Arrays.fill(fields, 0, size * 2, null);
            size = 0;
            return this;
        }

        public Builder add(String name, String value) {
            if (size * 2 == fields.length) fields = Arrays.copyOf(fields, fields.length * 2);
            fields[size * 2] = name;
            fields[size * 2 + 1] = value;
            size++;
            return this;
        }

        public int size() {
            return size;
        }

        public Headers build() {
            return size == 0 ? EMPTY : new Headers(Arrays.copyOf(fields, size * 2), size);
        }
    }
}
