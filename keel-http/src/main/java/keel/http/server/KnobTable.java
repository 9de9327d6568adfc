package keel.http.server;

import keel.http.server.ConfigKeys.ConfigException;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The knobs of an options record, read from the {@link Knob} declarations of its components and of
 * its nested records' components: the defaults, the reading and printing of each value, and the
 * building of the record from values. Builders ({@link KnobBuilder}), YAML, flags, {@code --help} and
 * the reference table all come from here, so a knob is written once.
 *
 * @param <R> the options record
 */
public final class KnobTable<R extends Record> {

    /**
     * One knob: where it sits in the record ({@code path}, outermost component first) and its declaration.
     *
     * @param <R> the options record
     */
    public record Key<R extends Record>(List<RecordComponent> path, Knob knob) {
        public String yaml() {
            return knob.key();
        }

        public String flag() {
            return knob.flag();
        }

        public String doc() {
            return knob.doc();
        }

        /** The default as the declaration writes it. */
        public String defaultWord() {
            return knob.value();
        }

        /** The value this knob has in {@code options}, as a configuration word. */
        public String valueIn(R options) {
            return print(valueOf(options));
        }

        Object valueOf(R options) {
            Object value = options;
            for (RecordComponent component : path) value = accessor(component, value);
            return value;
        }

        /** The value of a configuration word; a bad word throws {@link IllegalArgumentException} saying what is expected. */
        public Object parse(String word) {
            Class<?> type = type();
            return switch (knob.as()) {
                case SIZE -> type == long.class ? (Object) ConfigValues.size(word, knob.min(), knob.max())
                        : (Object) (int) ConfigValues.size(word, knob.min(), knob.max());
                case DEADLINE -> ConfigValues.deadline(word);
                case VERBATIM -> word;
                case VERBATIM_OR_UNSET -> ConfigValues.emptyAsNull(word);
                case TLS_PROTOCOLS -> keel.core.tls.Tls.checkProtocols(ConfigValues.list(word));
                case HOST_PORTS -> ConfigValues.hostPorts(word);
                case TYPE -> parseByType(type, word);
            };
        }

        private Object parseByType(Class<?> type, String word) {
            if (type == int.class) return ConfigValues.integer(word, knob.min(), knob.max());
            if (type == boolean.class) return ConfigValues.bool(word);
            if (type == Duration.class) return ConfigValues.duration(word);
            if (type == Path.class) return ConfigValues.path(word);
            if (type == String.class) return word.trim();
            if (type == List.class) return ConfigValues.list(word);
            if (type == URI.class) return uri(word);
            if (type.isEnum()) return enumWord(type, word);
            throw new IllegalStateException(yaml() + ": no words for " + type);
        }

        /** The configuration word of a value of this knob. */
        public String print(Object value) {
            return switch (knob.as()) {
                case SIZE -> ConfigValues.size(((Number) value).longValue());
                case DEADLINE -> ConfigValues.deadline((Duration) value);
                case VERBATIM, VERBATIM_OR_UNSET -> ConfigValues.nullAsEmpty((String) value);
                case TLS_PROTOCOLS, HOST_PORTS -> ConfigValues.list(stringList(value));
                case TYPE -> printByType(value);
            };
        }

        private static String printByType(Object value) {
            return switch (value) {
                case null -> "";
                case Duration duration -> ConfigValues.duration(duration);
                case Path path -> ConfigValues.path(path);
                case List<?> list -> ConfigValues.list(stringList(list));
                case Enum<?> constant -> constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
                default -> value.toString();
            };
        }

        Class<?> type() {
            return path.getLast().getType();
        }
    }

    private final Class<R> type;
    private final List<Key<R>> keys;
    private final Map<String, Object> defaults = new LinkedHashMap<>();

    private KnobTable(Class<R> type) {
        this.type = type;
        List<Key<R>> found = new ArrayList<>();
        collect(type, List.of(), found);
        this.keys = List.copyOf(found);
        for (Key<R> key : keys) {
            String word = key.defaultWord();
            defaults.put(key.yaml(), word.equals(Knob.PROCESSORS) ? Runtime.getRuntime().availableProcessors() : key.parse(word));
        }
    }

    /** The knobs of {@code type}: its components declared {@link Knob}, and those of the records it holds. */
    public static <R extends Record> KnobTable<R> of(Class<R> type) {
        return new KnobTable<>(type);
    }

    private void collect(Class<?> record, List<RecordComponent> outer, List<Key<R>> found) {
        for (RecordComponent component : record.getRecordComponents()) {
            List<RecordComponent> path = new ArrayList<>(outer);
            path.add(component);
            Knob knob = component.getAnnotation(Knob.class);
            if (knob != null) found.add(new Key<>(List.copyOf(path), knob));
            else if (component.getType().isRecord()) collect(component.getType(), path, found);
        }
    }

    /** Every knob, in the order of the record's components. */
    public List<Key<R>> keys() {
        return keys;
    }

    public Optional<Key<R>> byYaml(String yaml) {
        return keys.stream().filter(k -> k.yaml().equals(yaml)).findFirst();
    }

    public Optional<Key<R>> byFlag(String flag) {
        return keys.stream().filter(k -> k.flag().equals(flag)).findFirst();
    }

    /** Each knob's default, by YAML key (a fresh, modifiable map). */
    Map<String, Object> defaults() {
        return new LinkedHashMap<>(defaults);
    }

    /** The record of the declared defaults, for a record whose every component is a knob or a record of knobs. */
    public R defaultOptions() {
        return build(defaults, Map.of());
    }

    /** Each knob's value in {@code options}, by YAML key. */
    Map<String, Object> values(R options) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (Key<R> key : keys) values.put(key.yaml(), key.valueOf(options));
        return values;
    }

    /**
     * The record of {@code values} (by YAML key); components that are not knobs, nor records holding
     * knobs, come from {@code others} by name. A value the record refuses throws its
     * {@link IllegalArgumentException} as it is.
     */
    R build(Map<String, Object> values, Map<String, Object> others) {
        return type.cast(build(type, values, others));
    }

    private static Object build(Class<?> record, Map<String, Object> values, Map<String, Object> others) {
        RecordComponent[] components = record.getRecordComponents();
        Object[] arguments = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            RecordComponent component = components[i];
            types[i] = component.getType();
            Knob knob = component.getAnnotation(Knob.class);
            if (knob != null) arguments[i] = values.get(knob.key());
            else if (component.getType().isRecord()) arguments[i] = build(component.getType(), values, others);
            else arguments[i] = others.get(component.getName());
        }
        try {
            return record.getDeclaredConstructor(types).newInstance(arguments);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException refused) throw refused;
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build " + record.getName(), e);
        }
    }

    /** Checks that {@code value} fits knob {@code yaml}'s component, so that a builder's setter cannot name the wrong knob. */
    void check(String yaml, Object value) {
        Key<R> key = byYaml(yaml).orElseThrow(() -> new IllegalStateException("no knob " + yaml + " in " + type.getSimpleName()));
        Class<?> expected = boxed(key.type());
        if (value != null && !expected.isInstance(value)) {
            throw new IllegalStateException(yaml + " takes " + key.type().getSimpleName() + ", not " + value.getClass().getSimpleName());
        }
    }

    /** Reads a configuration word for {@code key}; a bad one is refused naming it as {@code name} and {@code source} do. */
    static Object read(Key<?> key, String name, String word, String source) {
        try {
            return key.parse(word);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("invalid value '" + word + "' for " + name + " in " + source + ": " + e.getMessage());
        }
    }

    /** The reference rows of these knobs: a Markdown table row each (key, flag, default, meaning). */
    public List<String> markdownRows() {
        return keys.stream().map(key -> "| `" + key.yaml() + "` | `" + key.flag() + "` | `"
                + (key.defaultWord().isEmpty() ? "\"\"" : key.defaultWord()) + "` | " + key.doc() + " |").toList();
    }

    /** The {@code --help} lines of these knobs, with the defaults of {@code defaults}. */
    public List<String> helpLines(R defaults) {
        return keys.stream().map(key -> {
            String value = key.valueIn(defaults);
            return String.format("  %-26s %-32s %s (%s)", key.flag() + " V", key.yaml(), key.doc().replace("`", ""),
                    value.isEmpty() ? "not set" : "default " + value);
        }).toList();
    }

    private static Object accessor(RecordComponent component, Object record) {
        try {
            return component.getAccessor().invoke(record);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + component, e);
        }
    }

    private static List<String> stringList(Object value) {
        return ((List<?>) value).stream().map(String::valueOf).toList();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object enumWord(Class<?> type, String word) {
        return ConfigValues.word(word, (Class) type);
    }

    private static URI uri(String word) {
        try {
            return new URI(word.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a URI: " + e.getMessage());
        }
    }

    private static Class<?> boxed(Class<?> type) {
        if (type == int.class) return Integer.class;
        if (type == long.class) return Long.class;
        if (type == boolean.class) return Boolean.class;
        return type;
    }
}
