package keel.lab;

import keel.amqp.AmqpOptions;
import keel.core.tls.ClientAuth;
import keel.http.config.KnobBuilder;
import keel.http.config.KnobTable;
import keel.http.server.ServerOptions;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each options record's factory (a constructor call naming each of its values) puts every knob in
 * its own component: a value given to one knob comes back from that knob, and every other knob keeps
 * its default.
 */
class KnobFactoryTest {

    @Test
    void theServerOptionsFactoryPutsEachKnobInItsComponent() {
        // The TLS knobs go in pairs: each is tried beside PEM files and a client trust, or beside a keystore.
        everyKnobLandsInItsComponent(ServerOptions.KNOBS, ServerOptions.Builder::build, ServerOptions::builder,
                () -> ServerOptions.builder().tlsCertificate(Path.of("cert.pem")).tlsPrivateKey(Path.of("key.pem"))
                        .tlsClientAuth(ClientAuth.WANT).tlsClientTrust(Path.of("trust.pem")),
                () -> ServerOptions.builder().tlsKeystore(Path.of("keys.p12")).tlsKeystorePassword("secret"));
    }

    @Test
    void theAmqpOptionsFactoryPutsEachKnobInItsComponent() {
        everyKnobLandsInItsComponent(AmqpOptions.KNOBS, AmqpOptions.Builder::build, AmqpOptions::builder);
    }

    @Test
    void theLabSettingsFactoryPutsEachKnobInItsComponent() {
        everyKnobLandsInItsComponent(LabSettings.KNOBS, LabSettings.Builder::build, LabSettings.Builder::new);
    }

    /** For each knob, some base (a builder) and a word of its own that the record takes; then only that knob moved. */
    @SafeVarargs
    private static <R extends Record, B extends KnobBuilder<R, B>> void everyKnobLandsInItsComponent(
            KnobTable<R> table, Function<B, R> build, Supplier<B>... bases) {
        for (KnobTable.Key<R> key : table.keys()) {
            List<String> tried = new ArrayList<>();
            boolean landed = false;
            for (Supplier<B> base : bases) {
                R before = build.apply(base.get());
                for (String word : otherWords(key, key.valueIn(before))) {
                    tried.add(word);
                    R after = buildWith(base.get(), build, key, word);
                    if (after == null) continue;
                    assertThat(key.valueIn(after)).as(key.yaml()).isEqualTo(key.print(key.parse(word)));
                    for (KnobTable.Key<R> other : table.keys()) {
                        if (other != key) assertThat(other.valueIn(after)).as(other.yaml() + " after setting " + key.yaml()).isEqualTo(other.valueIn(before));
                    }
                    landed = true;
                    break;
                }
                if (landed) break;
            }
            assertThat(landed).as(key.yaml() + ": no other value accepted among " + tried).isTrue();
        }
    }

    /** The record with {@code word} for {@code key}, or null when the knob or the record refuses it. */
    private static <R extends Record, B extends KnobBuilder<R, B>> R buildWith(B builder, Function<B, R> build, KnobTable.Key<R> key, String word) {
        try {
            return build.apply(builder.apply(key, key.yaml(), word, "test"));
        } catch (IllegalArgumentException refused) { // ConfigException is one
            return null;
        }
    }

    /** Words for {@code key} that differ from its default's. */
    private static List<String> otherWords(KnobTable.Key<?> key, String defaultWord) {
        Object value = defaultWord.isEmpty() ? null : key.parse(defaultWord);
        List<String> words = new ArrayList<>();
        switch (value) {
            case Integer n -> List.of(n + 1, n - 1, n * 2, 1, 2).forEach(i -> words.add(key.print(i)));
            case Long n -> List.of(n + 1, n - 1, n * 2, 1L, 2L).forEach(i -> words.add(key.print(i)));
            case Boolean b -> words.add(key.print(!b));
            case Duration d -> List.of(d.plusSeconds(1), d.plusMillis(1), Duration.ofSeconds(3)).forEach(v -> words.add(key.print(v)));
            case Enum<?> constant -> {
                for (Enum<?> other : constant.getDeclaringClass().getEnumConstants()) words.add(key.print(other));
            }
            case null, default -> words.addAll(List.of("x", "keel-test.p12", "TLSv1.3", "127.0.0.1:5999", "amqp://u:p@127.0.0.1:5999/v", "http://127.0.0.1:5999",
                    "jdbc:postgresql://127.0.0.1:5999/x", "text/x-keel"));
        }
        words.removeIf(word -> word.equals(defaultWord));
        return words;
    }
}
