package keel.http.config;

import keel.http.codec.Tokens;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Parses and prints configuration words (shared by every configuration table): integers, sizes
 * ({@code 8KiB}, {@code 10MiB}), durations ({@code 500ms}, {@code 10s}), file paths and comma-separated
 * lists. An empty path or text means "not set".
 */
public final class ConfigValues {
    private ConfigValues() {
    }

    /** Refuses a count below 1, naming the option. */
    public static void positive(String name, long value) {
        if (value < 1) throw new IllegalArgumentException(name + " must be >= 1: " + value);
    }

    /** Refuses a missing, zero or negative duration, naming the option. */
    public static void positive(String name, Duration value) {
        java.util.Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) throw new IllegalArgumentException(name + " must be > 0: " + value);
    }

    /** Refuses a missing or negative duration, naming the option. */
    public static void notNegative(String name, Duration value) {
        java.util.Objects.requireNonNull(value, name);
        if (value.isNegative()) throw new IllegalArgumentException(name + " must be >= 0: " + value);
    }

    public static int integer(String text, long min, long max) {
        try {
            long value = Long.parseLong(text.trim().replace("_", ""));
            if (value >= min && value <= max) return (int) value;
        } catch (NumberFormatException e) {
            // refused below, as a number out of range is
        }
        throw new IllegalArgumentException("expected an integer in " + min + ".." + max);
    }

    public static long size(String text, long min, long max) {
        String t = text.trim().toLowerCase(Locale.ROOT).replace("_", "");
        long unit = 1;
        for (String[] suffix : new String[][]{{"kib", "1024"}, {"mib", "1048576"}, {"gib", "1073741824"},
                {"kb", "1000"}, {"mb", "1000000"}, {"gb", "1000000000"}, {"k", "1024"}, {"m", "1048576"}, {"b", "1"}}) {
            if (t.endsWith(suffix[0])) {
                unit = Long.parseLong(suffix[1]);
                t = t.substring(0, t.length() - suffix[0].length()).trim();
                break;
            }
        }
        long value;
        try {
            value = Math.multiplyExact(Long.parseLong(t), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("expected a size such as 8KiB, 10MiB or 4096");
        }
        if (value < min || value > max) throw new IllegalArgumentException("expected a size in " + min + ".." + max + " bytes");
        return value;
    }

    public static Duration duration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            Duration d;
            if (t.endsWith("us")) d = Duration.ofNanos(1_000 * Long.parseLong(t.substring(0, t.length() - 2).trim()));
            else if (t.endsWith("ms")) d = Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2).trim()));
            else if (t.endsWith("s")) d = Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1).trim()));
            else if (t.endsWith("m")) d = Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1).trim()));
            else if (t.endsWith("h")) d = Duration.ofHours(Long.parseLong(t.substring(0, t.length() - 1).trim()));
            else if (t.startsWith("pt")) d = Duration.parse(t);
            else throw new IllegalArgumentException();
            if (d.isNegative()) throw new IllegalArgumentException();
            return d;
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("expected a duration such as 500ms, 10s or 2m");
        }
    }

    /** A deadline: a duration, or {@code none} (also {@code 0s}) for no deadline ({@link Duration#ZERO}). */
    public static Duration deadline(String text) {
        return text.trim().equalsIgnoreCase("none") ? Duration.ZERO : duration(text);
    }

    /** The configuration word of a deadline: {@code none} for {@link Duration#ZERO}. */
    public static String deadline(Duration d) {
        return d.isZero() ? "none" : duration(d);
    }

    public static boolean bool(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true", "on", "yes" -> true;
            case "false", "off", "no" -> false;
            default -> throw new IllegalArgumentException("expected true or false");
        };
    }

    public static <E extends Enum<E>> E word(String text, Class<E> type) {
        String constant = text.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (E value : type.getEnumConstants()) {
            if (value.name().equals(constant)) return value;
        }
        throw new IllegalArgumentException("expected one of " + String.join("|", Arrays.stream(type.getEnumConstants())
                .map(value -> value.name().toLowerCase(Locale.ROOT).replace('_', '-')).toList()));
    }

    public static String size(long bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) return bytes / (1 << 20) + "MiB";
        if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) return bytes / (1 << 10) + "KiB";
        return Long.toString(bytes);
    }

    public static String duration(Duration d) {
        if (d.compareTo(Duration.ofSeconds(1)) < 0 && d.toNanos() % 1_000_000 != 0) return d.toNanos() / 1_000 + "us";
        long ms = d.toMillis();
        if (ms % 60_000 == 0 && ms >= 60_000) return ms / 60_000 + "m";
        if (ms % 1000 == 0) return ms / 1000 + "s";
        return ms + "ms";
    }

    /** A file path; empty means not set (null). */
    public static Path path(String text) {
        return text.isBlank() ? null : Path.of(text.strip());
    }

    /** The configuration word of a path: empty when not set. */
    public static String path(Path path) {
        return path == null ? "" : path.toString();
    }

    /** A comma-separated list ({@code TLSv1.3,TLSv1.2}); blanks around the commas are ignored. */
    public static List<String> list(String text) {
        return Arrays.stream(text.split(",")).map(String::strip).filter(word -> !word.isEmpty()).toList();
    }

    public static String list(List<String> words) {
        return String.join(",", words);
    }

    /** A comma-separated list of {@code host:port} (or {@code host}, on a default port), each checked by {@link #hostPort}. */
    public static List<String> hostPorts(String text) {
        List<String> addresses = list(text);
        addresses.forEach(ConfigValues::hostPort);
        return addresses;
    }

    /**
     * Refuses anything but a {@code Host} field's syntax ({@link Tokens#isHost}: a reg-name or a
     * bracketed IP literal, then an optional port) with a host that is not empty and a port in 1..65535.
     */
    public static void hostPort(String address) {
        int colon = address.indexOf(':', address.startsWith("[") ? Math.max(0, address.indexOf(']')) : 0);
        if (!Tokens.isHost(address) || address.isEmpty() || colon == 0) throw notHostPort(address);
        if (colon < 0) return;
        String port = address.substring(colon + 1); // digits only, at most five: isHost saw to it
        if (port.isEmpty() || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65_535) throw notHostPort(address);
    }

    private static IllegalArgumentException notHostPort(String address) {
        return new IllegalArgumentException("not a host:port: '" + address + "'");
    }
}
