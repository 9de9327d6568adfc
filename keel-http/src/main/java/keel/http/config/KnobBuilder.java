package keel.http.config;

import java.util.Map;

/**
 * What every options builder shares: a value for each component of its {@link KnobTable}, starting at
 * the declared defaults (null for a component set in code only). A subclass adds one typed setter per
 * component ({@code .port(8080)}), each naming its knob's YAML key (or the component's name); YAML and
 * flags set knobs from their words through {@link #apply}.
 *
 * @param <R> the options record
 * @param <B> the builder itself, returned by the setters
 */
public abstract class KnobBuilder<R extends Record, B extends KnobBuilder<R, B>> {
    private final KnobTable<R> table;
    private final Map<String, Object> values;

    protected KnobBuilder(KnobTable<R> table) {
        this.table = table;
        this.values = table.defaults();
    }

    /** Sets the knob of YAML key {@code name}, or the component so named; a name of none, or a value of another type, is a mistake in the setter. */
    protected final B set(String name, Object value) {
        table.check(name, value);
        values.put(name, value);
        return self();
    }

    /**
     * Sets {@code key} from a configuration word; a bad word is refused with a
     * {@link ConfigException} naming the knob as {@code source} does ({@code name}: its
     * YAML key or its flag).
     */
    public final B apply(KnobTable.Key<R> key, String name, String word, String source) {
        values.put(key.yaml(), KnobTable.read(key, name, word, source));
        return self();
    }

    /** Takes every component's value from {@code options}. */
    public final B from(R options) {
        values.putAll(table.values(options));
        return self();
    }

    /** The record of these values; one it refuses throws its {@link IllegalArgumentException}. */
    public R build() {
        return table.build(values);
    }

    /** The value of each component so far that is set, by YAML key (or name, for one set in code). */
    public final Map<String, Object> values() {
        return Map.copyOf(values.entrySet().stream().filter(e -> e.getValue() != null)
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }
}
