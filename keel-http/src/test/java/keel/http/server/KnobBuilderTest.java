package keel.http.server;

import keel.http.config.KnobTable;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;

/** The typed setters of {@link ServerOptions.Builder} are the one place besides its declaration that names a knob. */
class KnobBuilderTest {

    @Test
    void everyKnobHasExactlyOneSetterAndEachSetterSetsOnlyItsKnob() throws Exception {
        Map<String, String> setterOf = new HashMap<>();
        for (Method setter : ServerOptions.Builder.class.getDeclaredMethods()) {
            if (!Modifier.isPublic(setter.getModifiers()) || setter.getParameterCount() != 1 || setter.getName().equals("route")) continue;
            for (Object value : samples(setter.getParameterTypes()[0])) {
                ServerOptions.Builder builder = ServerOptions.builder();
                Map<String, Object> before = builder.values();
                setter.invoke(builder, value);
                List<String> changed = ServerOptions.KNOBS.keys().stream().map(KnobTable.Key::yaml)
                        .filter(yaml -> !Objects.equals(before.get(yaml), builder.values().get(yaml))).toList();
                assertThat(changed.size()).as(setter.getName()).isLessThanOrEqualTo(1);
                if (changed.isEmpty()) continue;
                String previous = setterOf.put(changed.getFirst(), setter.getName());
                assertThat(previous).as(changed.getFirst() + " set by " + previous + " and " + setter.getName())
                        .isIn(null, setter.getName());
            }
        }
        assertThat(setterOf.keySet()).containsExactlyInAnyOrderElementsOf(ServerOptions.KNOBS.keys().stream().map(KnobTable.Key::yaml).toList());
    }

    /** Values of {@code type} of which at least one differs from any default. */
    private static List<?> samples(Class<?> type) {
        if (type == int.class) return List.of(7, 8);
        if (type == long.class) return List.of(7L, 8L);
        if (type == boolean.class) return List.of(true, false);
        if (type == Duration.class) return List.of(Duration.ofSeconds(7), Duration.ofSeconds(8));
        if (type == Path.class) return List.of(Path.of("x"));
        if (type == String.class) return List.of("x");
        if (type == List.class) return List.of(List.of("x"));
        if (type.isEnum()) return List.of(type.getEnumConstants());
        throw new AssertionError("no samples of " + type);
    }
}
