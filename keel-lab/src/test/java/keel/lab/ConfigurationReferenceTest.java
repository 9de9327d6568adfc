package keel.lab;

import keel.amqp.AmqpOptions;
import keel.http.config.KnobTable;
import keel.http.server.ServerOptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps {@code docs/configuration.md} in step with the knobs' declarations: the table between its
 * marker comments is {@link Main#reference()}. {@code -Dkeel.reference.write=true} writes it instead.
 */
class ConfigurationReferenceTest {
    static final Path REFERENCE = Path.of("..", "docs", "configuration.md");
    static final String BEGIN = "<!-- knobs: begin (generated from the @Knob declarations; do not edit) -->\n";
    static final String END = "<!-- knobs: end -->";
    static final String REGENERATE = "mvn -o -q -pl keel-lab -am test -Dtest=ConfigurationReferenceTest -Dsurefire.failIfNoSpecifiedTests=false -Dkeel.reference.write=true";

    @Test
    void theReferenceTableIsTheKnobsDeclarations() throws Exception {
        String text = Files.readString(REFERENCE);
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        assertThat(begin).as("the marker comments of " + REFERENCE).isNotNegative();
        assertThat(end).as("the marker comments of " + REFERENCE).isGreaterThan(begin);
        String generated = text.substring(0, begin + BEGIN.length()) + Main.reference() + text.substring(end);
        if (Boolean.getBoolean("keel.reference.write")) Files.writeString(REFERENCE, generated);
        assertThat(text).as(REFERENCE + " is out of step with the knobs' declarations; regenerate it with: " + REGENERATE)
                .isEqualTo(generated);
    }

    @Test
    void everyDeclaredDefaultIsAValidWordAsItIsPrinted() {
        List<KnobTable.Key<?>> keys = new ArrayList<>(ServerOptions.KNOBS.keys());
        keys.addAll(LabSettings.KNOBS.keys());
        keys.addAll(AmqpOptions.KNOBS.keys());
        for (KnobTable.Key<?> key : keys) {
            if (key.defaultWord().equals(keel.http.config.Knob.PROCESSORS)) continue;
            assertThat(key.print(key.parse(key.defaultWord()))).as(key.yaml()).isEqualTo(key.defaultWord());
        }
        assertThat(keys.stream().map(KnobTable.Key::yaml).distinct()).as("keys").hasSameSizeAs(keys);
        assertThat(keys.stream().map(KnobTable.Key::flag).distinct()).as("flags").hasSameSizeAs(keys);
    }
}
