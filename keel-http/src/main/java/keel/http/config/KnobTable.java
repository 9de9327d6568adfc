package keel.http.config;

import java.lang.invoke.MethodType;
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
 * a start in all. The factory names each argument ({@code values.get("timeouts.idle")}), and the table
 * refuses it when it is made unless it asks for every component once, in the components' order.
 *
 * @param <R> the options record
 */
public final class KnobTable<R extends Record> {

    /**
     * One knob: where it sits in the record ({@code path}, outermost component first) and its declaration.
     * Inside the table a key without a declaration stands for a component set in code only (a policy,
     * an observer), which the builder and the factory name by its component's name.
     *
     * @param <R> the options record
     */
    public record Key<R extends Record>(List<RecordComponent> path, Knob knob) {
        /** What a factory and a builder name it by: its YAML key, or the component's name when it is no knob. */
        String name() {
            return knob != null ? knob.key() : path.getLast().getName();
        }

        /** The component, as the factory's message names it ({@code Timeouts.idle (timeouts.idle)}). */
        String component() {
            return path.getLast().getDeclaringRecord().getSimpleName() + "." + path.getLast().getName() + " (" + name() + ")";
        }

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

        Object defaultValue() {
            return knob.value().equals(Knob.PROCESSORS) ? Runtime.getRuntime().availableProcessors() : parse(knob.value());
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
                case VERBATIM_OR_UNSET -> word.isEmpty() ? null : word; // empty: not set
                case TLS_PROTOCOLS -> keel.core.tls.Tls.checkProtocols(ConfigValues.list(word));
                case HOST_PORTS -> ConfigValues.hostPorts(word);
                case TYPE -> parseByType(type, word);
            };
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private Object parseByType(Class<?> type, String word) {
            if (type == int.class) return ConfigValues.integer(word, knob.min(), knob.max());
            if (type == boolean.class) return ConfigValues.bool(word);
            if (type == Duration.class) return ConfigValues.duration(word);
            if (type == Path.class) return ConfigValues.path(word);
            if (type == String.class) return word.trim();
            if (type == List.class) return ConfigValues.list(word);
            if (type == URI.class) return uri(word);
            if (type.isEnum()) return ConfigValues.word(word, (Class) type);
            throw new IllegalStateException(yaml() + ": no words for " + type);
        }

        /** The configuration word of a value of this knob. */
        public String print(Object value) {
            return switch (knob.as()) {
                case SIZE -> ConfigValues.size(((Number) value).longValue());
                case DEADLINE -> ConfigValues.deadline((Duration) value);
                case VERBATIM, VERBATIM_OR_UNSET -> value == null ? "" : (String) value;
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
     * name their components, with the constructor call of each nested record in its place
     * ({@code v -> new Options(v.get("server.port"), new Limits(v.get("limits.max-body-size")), v.get("routes"))}).
     *
     * @param <R> the options record
     */
    @FunctionalInterface
    public interface Factory<R extends Record> {
        R create(Values values);
    }

    /**
     * The values of a record's components in declaration order, each nested record's components in
     * its place (depth first), for a {@link Factory} to take one by one, each by its name. A name that
     * is not the next component's is refused with both names.
     */
    public static final class Values {
        private final String owner;
        private final List<? extends Key<?>> leaves;
        private final Object[] values;
        private int next;

        private Values(String owner, List<? extends Key<?>> leaves, Object[] values) {
            this.owner = owner;
            this.leaves = leaves;
            this.values = values;
        }

        /** The value of the next component, which must be the one named {@code name}: its knob's YAML key, or its own name. */
        @SuppressWarnings("unchecked")
        public <T> T get(String name) {
            if (next == leaves.size() || !leaves.get(next).name().equals(name)) throw new IllegalStateException(misplaced(name));
            return (T) values[next++];
        }

        private String misplaced(String name) {
            String asked = "the factory of " + owner + " asks for " + name;
            for (int i = 0; i < next; i++) {
                if (leaves.get(i).name().equals(name)) return asked + " twice";
            }
            if (next == leaves.size()) return asked + " after its last component";
            return asked + " where " + leaves.get(next).component() + " goes";
        }
    }

    private final Class<R> type;
    private final Factory<R> factory;
    /** Every component that holds no record of knobs, in the factory's order: the knobs and the values set in code. */
    private final List<Key<R>> leaves;
    private final List<Key<R>> keys;
    private final Map<String, Object> defaults = new LinkedHashMap<>();
    private final R defaultOptions;

    private KnobTable(Class<R> type, Factory<R> factory) {
        this.type = type;
        this.factory = factory;
        List<Key<R>> found = new ArrayList<>();
        collect(type, List.of(), found);
        this.leaves = List.copyOf(found);
        List<Key<R>> knobs = new ArrayList<>();
        for (Key<R> leaf : leaves) {
            if (defaults.containsKey(leaf.name())) throw new IllegalStateException(type.getSimpleName() + " has two components named " + leaf.name());
            defaults.put(leaf.name(), leaf.knob() == null ? null : leaf.defaultValue());
            if (leaf.knob() != null) knobs.add(leaf);
        }
        this.keys = List.copyOf(knobs);
        this.defaultOptions = build(defaults);
    }

    /**
     * The knobs of {@code type}: its components declared {@link Knob}, and those of the records it
     * holds; {@code factory} builds it. A factory that does not ask for every component once, in
     * order, is refused here, naming the component.
     */
    public static <R extends Record> KnobTable<R> of(Class<R> type, Factory<R> factory) {
        return new KnobTable<>(type, factory);
    }

    /** Adds the components of {@code record}, found at {@code outer}; true when it holds a knob. A record that holds none (a policy) is one value. */
    private static <R extends Record> boolean collect(Class<?> record, List<RecordComponent> outer, List<Key<R>> leaves) {
        boolean knobs = false;
        for (RecordComponent component : record.getRecordComponents()) {
            List<RecordComponent> path = new ArrayList<>(outer);
            path.add(component);
            Knob knob = component.getAnnotation(Knob.class);
            int size = leaves.size();
            if (knob == null && component.getType().isRecord() && collect(component.getType(), path, leaves)) {
                knobs = true;
                continue;
            }
            leaves.subList(size, leaves.size()).clear();
            leaves.add(new Key<>(List.copyOf(path), knob));
            knobs |= knob != null;
        }
        return knobs;
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

    /** Each component's default, by name (a fresh, modifiable map). */
    Map<String, Object> defaults() {
        return new LinkedHashMap<>(defaults);
    }

    /** The record of the declared defaults (null for the values set in code). */
    public R defaultOptions() {
        return defaultOptions;
    }

    /** Each component's value in {@code options}, by name (see {@link Values#get}). */
    Map<String, Object> values(R options) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (Key<R> leaf : leaves) values.put(leaf.name(), leaf.valueOf(options));
        return values;
    }

    /** The record of {@code values} (by name); a value the record refuses throws its {@link IllegalArgumentException} as it is. */
    R build(Map<String, Object> values) {
        Object[] arguments = new Object[leaves.size()];
        for (int i = 0; i < arguments.length; i++) arguments[i] = values.get(leaves.get(i).name());
        Values taken = new Values(type.getSimpleName(), leaves, arguments);
        R built = factory.create(taken);
        if (taken.next != arguments.length) {
            throw new IllegalStateException("the factory of " + type.getSimpleName() + " leaves out " + leaves.get(taken.next).component());
        }
        return built;
    }

    /** Checks that {@code value} fits the component named {@code name}, so that a builder's setter cannot name the wrong one. */
    void check(String name, Object value) {
        Key<R> leaf = null;
        for (Key<R> each : leaves) {
            if (each.name().equals(name)) leaf = each;
        }
        if (leaf == null) throw new IllegalStateException("no component " + name + " in " + type.getSimpleName());
        if (value != null && !MethodType.methodType(leaf.type()).wrap().returnType().isInstance(value)) {
            throw new IllegalStateException(name + " takes " + leaf.type().getSimpleName() + ", not " + value.getClass().getSimpleName());
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

    private static URI uri(String word) {
        try {
            return new URI(word.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a URI: " + e.getMessage());
        }
    }
}
