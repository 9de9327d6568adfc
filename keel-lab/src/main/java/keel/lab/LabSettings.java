package keel.lab;

import keel.http.server.ConfigKeys;
import keel.http.server.ConfigValues;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The lab app's own settings, beside the server's: the embedded mock upstream and the client
 * scenarios that call it. YAML keys start with {@code lab.}; each has a flag.
 *
 * @param upstreamDelay how long the mock upstream takes to answer (a request's {@code delay-ms} overrides it)
 * @param upstreamUrl   where the scenarios send their calls; empty: this server's own mock upstream
 * @param metrics       whether the server and client report to the metrics registry and {@code GET /metrics}
 *                      serves it; off, they report to no one (what bench/throughput.sh prices)
 */
public record LabSettings(Duration upstreamDelay, String upstreamUrl, boolean metrics) {

    record Key(String yaml, String flag, String help, Function<LabSettings, String> current,
               BiConsumer<Builder, String> setter) {
    }

    static final List<Key> KEYS = List.of(
            new Key("lab.upstream-delay", "--upstream-delay", "how long the mock upstream takes to answer",
                    s -> ConfigValues.duration(s.upstreamDelay()), (b, v) -> b.upstreamDelay = ConfigValues.duration(v)),
            new Key("lab.upstream-url", "--upstream-url", "base URL the client scenarios call (empty: this server's mock upstream)",
                    s -> s.upstreamUrl().isEmpty() ? "\"\"" : s.upstreamUrl(), (b, v) -> b.upstreamUrl = v.trim()),
            new Key("lab.metrics", "--metrics", "server and client metrics, served on GET /metrics: true or false",
                    s -> String.valueOf(s.metrics()), (b, v) -> b.metrics = ConfigValues.bool(v)));

    static Optional<Key> byYaml(String yaml) {
        return KEYS.stream().filter(k -> k.yaml().equals(yaml)).findFirst();
    }

    static Optional<Key> byFlag(String flag) {
        return KEYS.stream().filter(k -> k.flag().equals(flag)).findFirst();
    }

    static void apply(Builder builder, Key key, String name, String value, String source) {
        try {
            key.setter().accept(builder, value);
        } catch (IllegalArgumentException e) {
            throw new ConfigKeys.ConfigException("invalid value '" + value + "' for " + name + " in " + source + ": " + e.getMessage());
        }
    }

    public static LabSettings defaults() {
        return new Builder().build();
    }

    /** These settings with another mock upstream delay. */
    public LabSettings withUpstreamDelay(Duration delay) {
        return new LabSettings(delay, upstreamUrl, metrics);
    }

    static final class Builder {
        private Duration upstreamDelay = Duration.ofMillis(200);
        private String upstreamUrl = "";
        private boolean metrics = true;

        LabSettings build() {
            if (!upstreamUrl.isEmpty() && !upstreamUrl.startsWith("http://")) {
                throw new ConfigKeys.ConfigException("lab.upstream-url must be an http:// URL: " + upstreamUrl);
            }
            return new LabSettings(upstreamDelay, upstreamUrl, metrics);
        }
    }
}
