package keel.http.config;

import keel.http.client.ClientOptions;
import keel.http.server.ServerOptions;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A knob is declared once, by its {@link Knob}: that gives its key, its flag, its default and its
 * meaning; the record's factory and the builder's setter only name it, and a factory that names the
 * wrong one is refused when its table is made.
 */
class KnobDeclarationTest {
    private static final List<KnobTable<?>> TABLES = List.of(ServerOptions.KNOBS, ClientOptions.KNOBS);

    @Test
    void everyKnobHasAKeyAFlagAMeaningAndADefaultThatReadsBack() {
        List<KnobTable.Key<?>> keys = new ArrayList<>();
        TABLES.forEach(table -> keys.addAll(table.keys()));
        for (KnobTable.Key<?> key : keys) {
            assertThat(key.yaml()).as("a dotted key").matches("[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)+");
            assertThat(key.flag()).as(key.yaml()).matches("--[a-z][a-z0-9-]*");
            assertThat(key.doc()).as(key.yaml()).isNotBlank();
            if (key.defaultWord().equals(Knob.PROCESSORS)) continue;
            assertThat(key.print(key.parse(key.defaultWord()))).as(key.yaml()).isEqualTo(key.defaultWord());
        }
        assertThat(keys.stream().map(KnobTable.Key::yaml).distinct()).as("keys").hasSameSizeAs(keys);
        assertThat(keys.stream().map(KnobTable.Key::flag).distinct()).as("flags").hasSameSizeAs(keys);
    }

    @Test
    void everyKnobHasARowInTheReference() throws Exception {
        String reference = Files.readString(Path.of("..", "docs", "configuration.md"));
        for (KnobTable<?> table : TABLES) {
            for (KnobTable.Key<?> key : table.keys()) {
                String word = key.defaultWord().isEmpty() ? "\"\"" : key.defaultWord();
                assertThat(reference).as(key.yaml()).contains("| `" + key.yaml() + "` | `" + key.flag() + "` | `" + word + "` | " + key.doc() + " |");
            }
        }
    }

    @Test
    void everyServerKnobHasExactlyOneSetterAndEachSetterSetsOnlyItsKnob() throws Exception {
        everyKnobHasOneSetter(ServerOptions.KNOBS, ServerOptions.Builder.class, ServerOptions::builder);
    }

    @Test
    void everyClientKnobHasExactlyOneSetterAndEachSetterSetsOnlyItsKnob() throws Exception {
        everyKnobHasOneSetter(ClientOptions.KNOBS, ClientOptions.Builder.class, ClientOptions::builder);
    }

    /** The typed setters of a builder are the one place besides its declaration that names a knob. */
    private static <R extends Record> void everyKnobHasOneSetter(KnobTable<R> table, Class<?> type, Supplier<? extends KnobBuilder<R, ?>> builders)
            throws Exception {
        Map<String, String> setterOf = new HashMap<>();
        for (Method setter : type.getDeclaredMethods()) {
            if (!Modifier.isPublic(setter.getModifiers()) || setter.getParameterCount() != 1) continue;
            for (Object value : samples(setter.getParameterTypes()[0])) {
                KnobBuilder<R, ?> builder = builders.get();
                Map<String, Object> before = builder.values();
                setter.invoke(builder, value);
                List<String> changed = table.keys().stream().map(KnobTable.Key::yaml)
                        .filter(yaml -> !Objects.equals(before.get(yaml), builder.values().get(yaml))).toList();
                assertThat(changed.size()).as(setter.getName()).isLessThanOrEqualTo(1);
                if (changed.isEmpty()) continue;
                String previous = setterOf.put(changed.getFirst(), setter.getName());
                assertThat(previous).as(changed.getFirst() + " set by " + previous + " and " + setter.getName())
                        .isIn(null, setter.getName());
            }
        }
        assertThat(setterOf.keySet()).containsExactlyInAnyOrderElementsOf(table.keys().stream().map(KnobTable.Key::yaml).toList());
    }

    /** Values of {@code type} of which at least one differs from any default; none for a type no knob has (a route, a policy). */
    private static List<?> samples(Class<?> type) {
        if (type == int.class) return List.of(7, 8);
        if (type == long.class) return List.of(7L, 8L);
        if (type == boolean.class) return List.of(true, false);
        if (type == Duration.class) return List.of(Duration.ofSeconds(7), Duration.ofSeconds(8));
        if (type == Path.class) return List.of(Path.of("x"));
        if (type == String.class) return List.of("x");
        if (type == List.class) return List.of(List.of("x"));
        if (type.isEnum()) return List.of(type.getEnumConstants());
        return List.of();
    }

    record Policy(int tries) {
    }

    record Inner(@Knob(key = "sample.second", flag = "--second", value = "2s", doc = "the second") Duration second) {
    }

    record Sample(@Knob(key = "sample.first", flag = "--first", value = "1s", doc = "the first") Duration first,
                  Inner inner, Policy policy) {
    }

    @Test
    void aFactoryThatNamesEachComponentInItsPlaceMakesTheTable() {
        KnobTable<Sample> table = KnobTable.of(Sample.class, v -> new Sample(v.get("sample.first"), new Inner(v.get("sample.second")), v.get("policy")));
        assertThat(table.defaultOptions()).isEqualTo(new Sample(Duration.ofSeconds(1), new Inner(Duration.ofSeconds(2)), null));
        assertThat(table.keys()).extracting(KnobTable.Key::yaml).containsExactly("sample.first", "sample.second");
    }

    @Test
    void aFactoryThatSwapsTwoKnobsIsRefusedWhenTheTableIsMade() {
        assertThatThrownBy(() -> KnobTable.of(Sample.class, v -> new Sample(v.get("sample.second"), new Inner(v.get("sample.first")), v.get("policy"))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the factory of Sample asks for sample.second where Sample.first (sample.first) goes");
    }

    @Test
    void aFactoryThatAsksForAKnobTwiceIsRefusedWhenTheTableIsMade() {
        assertThatThrownBy(() -> KnobTable.of(Sample.class, v -> new Sample(v.get("sample.first"), new Inner(v.get("sample.first")), v.get("policy"))))
                .hasMessage("the factory of Sample asks for sample.first twice");
    }

    @Test
    void aFactoryThatLeavesAComponentOutIsRefusedWhenTheTableIsMade() {
        assertThatThrownBy(() -> KnobTable.of(Sample.class, v -> new Sample(v.get("sample.first"), new Inner(v.get("sample.second")), null)))
                .hasMessage("the factory of Sample leaves out Sample.policy (policy)");
        assertThatThrownBy(() -> KnobTable.of(Sample.class, v -> new Sample(v.get("sample.first"), new Inner(Duration.ZERO), v.get("policy"))))
                .hasMessage("the factory of Sample asks for policy where Inner.second (sample.second) goes");
    }

    @Test
    void aFactoryThatAsksForAKeyOfNoComponentIsRefusedWhenTheTableIsMade() {
        assertThatThrownBy(() -> KnobTable.of(Sample.class, v -> new Sample(v.get("sample.frist"), new Inner(v.get("sample.second")), v.get("policy"))))
                .hasMessage("the factory of Sample asks for sample.frist where Sample.first (sample.first) goes");
    }
}
