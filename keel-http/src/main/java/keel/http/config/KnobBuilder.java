package keel.http.config;

import java.util.Map;

/**
 * What every options builder shares: a value for each knob of its {@link KnobTable}, starting at the
 * declared defaults. A subclass adds one typed setter per knob ({@code .port(8080)}), each naming its
 * knob's YAML key; YAML and flags set knobs from their words through {@link #apply}.
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

    /** Sets the knob of YAML key {@code yaml}; a key that is no knob, or a value of another type, is a mistake in the setter. */
    protected final B set(String yaml, Object value) {
        table.check(yaml, value);
        values.put(yaml, value);
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

    /** Takes every knob's value from {@code options}. */
    protected final B from(R options) {
        values.putAll(table.values(options));
        return self();
    }

    /** The record of the knobs' values, and of {@code others} for components that are not knobs (by name). */
    protected final R build(Map<String, Object> others) {
        return table.build(values, others);
    }

    /** The value of each knob so far, by YAML key. */
    public final Map<String, Object> values() {
        return Map.copyOf(values.entrySet().stream().filter(e -> e.getValue() != null)
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }
}
