package keel.http.server;

import keel.http.Execution;
import keel.http.config.ConfigException;
import keel.http.config.ConfigValues;
import keel.http.config.Knob;
import keel.http.config.KnobTable;
import keel.http.router.RouteSettings;

import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Reads configuration words into {@link ServerOptions}: each knob by its YAML key or its CLI flag (the
 * knobs are declared in {@link ServerOptions} and listed by {@link ServerOptions#KNOBS}), and the
 * entries of the {@code routes:} section. YAML files and command lines both go through here, so the
 * two can never disagree, and a wrong key or value is refused with a message that names it.
 */
public final class ConfigKeys {

    /** Every knob of {@link ServerOptions}. */
    public static final List<KnobTable.Key<ServerOptions>> ALL = ServerOptions.KNOBS.keys();

    /** One field of an entry of the {@code routes:} section; {@code path} is required, the others optional. */
    public record RouteField(String name, String help, BiFunction<RouteSettings, String, RouteSettings> setter) {
    }

    public static final List<RouteField> ROUTE_FIELDS = List.of(
            new RouteField("path", "the route's pattern as the code declares it (/devices/{id}/status); required",
                    (r, v) -> RouteSettings.of(v.trim())),
            new RouteField("method", "GET, POST, …; absent: every method of that pattern", (r, v) -> r.method(v.trim())),
            new RouteField("execution", "event-loop, worker-pool or virtual-thread",
                    (r, v) -> r.execution(ConfigValues.word(v, Execution.class))),
            new RouteField("limit", "requests it runs at once (503 past it)", (r, v) -> r.limit(ConfigValues.integer(v, 1, 10_000_000))),
            new RouteField("deadline", "how long its handler may take before the client gets 503 (none: no deadline)",
                    (r, v) -> r.deadline(ConfigValues.deadline(v))),
            new RouteField("max-body", "its largest request body (413 past it)", (r, v) -> r.maxBodySize(ConfigValues.size(v, 0, Knob.MAX_SIZE))));

    private ConfigKeys() {
    }

    /**
     * The settings of entry {@code index} of a {@code routes:} section, from its fields' words; an
     * unknown field, a missing path or a bad value is refused naming it ({@code routes[0].execution}).
     */
    public static RouteSettings route(int index, Map<String, String> fields, String source) {
        String prefix = "routes[" + index + "].";
        for (String name : fields.keySet()) {
            if (ROUTE_FIELDS.stream().noneMatch(field -> field.name().equals(name))) {
                throw new ConfigException("unknown configuration key '" + prefix + name + "' in " + source + " (a route takes "
                        + String.join(", ", ROUTE_FIELDS.stream().map(RouteField::name).toList()) + ")");
            }
        }
        if (fields.get("path") == null) throw new ConfigException(prefix + "path is missing in " + source + ": every route entry names its pattern");
        RouteSettings route = null; // the path comes first: it makes the settings the other fields change
        for (RouteField field : ROUTE_FIELDS) {
            String value = fields.get(field.name());
            if (value == null) continue;
            try {
                route = field.setter().apply(route, value);
            } catch (IllegalArgumentException e) {
                throw new ConfigException("invalid value '" + value + "' for " + prefix + field.name() + " in " + source + ": " + e.getMessage());
            }
        }
        return route;
    }

    /** Sets the YAML key {@code yaml} from {@code source} (a file name or "command line"). */
    public static void applyYaml(ServerOptions.Builder builder, String yaml, String value, String source) {
        var key = ServerOptions.KNOBS.byYaml(yaml).orElseThrow(() -> new ConfigException(
                "unknown configuration key '" + yaml + "' in " + source + " (see 'bin/keel --help' for the keys)"));
        builder.apply(key, key.yaml(), value, source);
    }

    public static void applyFlag(ServerOptions.Builder builder, String flag, String value) {
        var key = ServerOptions.KNOBS.byFlag(flag).orElseThrow(() -> new ConfigException("unknown flag '" + flag + "' (see 'bin/keel --help')"));
        builder.apply(key, key.flag(), value, "the command line");
    }

    /** Builds, turning a cross-field violation (say, low water mark above high) into a {@link ConfigException}. */
    public static <R> R build(Supplier<R> build) {
        try {
            return build.get();
        } catch (IllegalArgumentException e) {
            throw new ConfigException("invalid configuration: " + e.getMessage());
        }
    }
}
