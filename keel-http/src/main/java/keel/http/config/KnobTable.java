package keel.http.config;

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
 * <p>The record is built by its {@link Factory}, a plain constructor call, not by reflection: a
 * reflective call of each record's constructor costs the JVM a few generated classes, about 150 ms of
 * a start in all.
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

    /**
     * Builds the options record from its {@link Values}: a call of its constructor whose arguments
     * are {@code values.next()}, with the constructor call of each nested record in its place
     * ({@code values -> new Options(values.next(), new Limits(values.next(), values.next()), values.next())}).
     *
     * @param <R> the options record
     */
    @FunctionalInterface
    public interface Factory<R extends Record> {
        R create(Values values);
    }

    /**
     * The values of a record's components in declaration order, each nested record's components in
     * its place (depth first), for a {@link Factory}. A factory that takes them out of order fails
     * with a {@link ClassCastException} where the types differ; {@code KnobFactoryTest} checks every
     * knob lands in its own component.
     */
    public static final class Values {
        private final Object[] values;
        private int next;

        private Values(Object[] values) {
            this.values = values;
        }

        /** The next component's value. */
        @SuppressWarnings("unchecked")
        public <T> T next() {
            if (next == values.length) throw new IllegalStateException("the factory takes more than the " + values.length + " values");
            return (T) values[next++];
        }
    }

    /** A component that is no record of knobs: a knob (its key) or another value, named by its component. */
    private record Leaf(String knobKey, String name) {
    }

    private final Class<R> type;
    private final Factory<R> factory;
    private final List<Key<R>> keys;
    private final List<Leaf> leaves;
    private final Map<String, Object> defaults = new LinkedHashMap<>();

    private KnobTable(Class<R> type, Factory<R> factory) {
        this.type = type;
        this.factory = factory;
        List<Key<R>> found = new ArrayList<>();
        List<Leaf> foundLeaves = new ArrayList<>();
        collect(type, List.of(), found, foundLeaves);
        this.keys = List.copyOf(found);
        this.leaves = List.copyOf(foundLeaves);
        for (Key<R> key : keys) {
            String word = key.defaultWord();
            defaults.put(key.yaml(), word.equals(Knob.PROCESSORS) ? Runtime.getRuntime().availableProcessors() : key.parse(word));
        }
    }

    /**
     * The knobs of {@code type}: its components declared {@link Knob}, and those of the records it
     * holds; {@code factory} builds it.
     */
    public static <R extends Record> KnobTable<R> of(Class<R> type, Factory<R> factory) {
        return new KnobTable<>(type, factory);
    }

    private void collect(Class<?> record, List<RecordComponent> outer, List<Key<R>> found, List<Leaf> leaves) {
        for (RecordComponent component : record.getRecordComponents()) {
            List<RecordComponent> path = new ArrayList<>(outer);
            path.add(component);
            Knob knob = component.getAnnotation(Knob.class);
            if (knob != null) {
                found.add(new Key<>(List.copyOf(path), knob));
                leaves.add(new Leaf(knob.key(), component.getName()));
            } else if (component.getType().isRecord()) {
                collect(component.getType(), path, found, leaves);
            } else {
                leaves.add(new Leaf(null, component.getName()));
            }
        }
    }

    /** Every knob, in the order of the record's components. */
    public List<Key<R>> keys() {
        return keys;
    }

    // byYaml and byFlag run for every flag of a start, before the JIT: loops, where a lambda would be a class spun at run time.

    public Optional<Key<R>> byYaml(String yaml) {
        for (Key<R> key : keys) {
            if (key.yaml().equals(yaml)) return Optional.of(key);
        }
        return Optional.empty();
    }

    public Optional<Key<R>> byFlag(String flag) {
        for (Key<R> key : keys) {
            if (key.flag().equals(flag)) return Optional.of(key);
        }
        return Optional.empty();
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
        Object[] arguments = new Object[leaves.size()];
        for (int i = 0; i < arguments.length; i++) {
            Leaf leaf = leaves.get(i);
            arguments[i] = leaf.knobKey() != null ? values.get(leaf.knobKey()) : others.get(leaf.name());
        }
        Values taken = new Values(arguments);
        R built = factory.create(taken);
        if (taken.next != arguments.length) {
            throw new IllegalStateException("the factory of " + type.getSimpleName() + " took " + taken.next + " of its " + arguments.length + " values");
        }
        return built;
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
