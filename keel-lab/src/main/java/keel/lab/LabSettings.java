package keel.lab;

import keel.http.client.ClientOptions;
import keel.http.config.Knob;
import keel.http.config.KnobBuilder;
import keel.http.config.KnobTable;

import java.time.Duration;

/**
 * The lab app's own settings, beside the server's: the embedded mock upstream and the client
 * scenarios that call it. YAML keys start with {@code lab.}, and the client's with {@code client.};
 * each has a flag.
 *
 * @param client the HTTP client of the scenarios; one loop unless set ({@link Builder}): calls made on
 *               a server loop run on that loop, and the client's own loop serves the other threads' calls
 */
public record LabSettings(
        @Knob(key = "lab.upstream-delay", flag = "--upstream-delay", value = "200ms",
                doc = "how long the mock upstream takes to answer (a request's `delay-ms` overrides it)")
        Duration upstreamDelay,
        @Knob(key = "lab.upstream-url", flag = "--upstream-url", value = "",
                doc = "the base URL the client scenarios call (empty: this server's own mock upstream)")
        String upstreamUrl,
        @Knob(key = "lab.metrics", flag = "--metrics", value = "true",
                doc = "server and client metrics, served on `GET /metrics` (`false`: they report to no one, what `bench/throughput.sh` prices)")
        boolean metrics,
        ClientOptions client) {

    static final KnobTable<LabSettings> KNOBS = KnobTable.of(LabSettings.class,
            v -> new LabSettings(v.get("lab.upstream-delay"), v.get("lab.upstream-url"), v.get("lab.metrics"), ClientOptions.of(v)));

    public LabSettings {
        if (!upstreamUrl.isEmpty() && !upstreamUrl.startsWith("http://")) {
            throw new IllegalArgumentException("lab.upstream-url must be an http:// URL: " + upstreamUrl);
        }
    }

    /** These settings with the lab's client. */
    public LabSettings(Duration upstreamDelay, String upstreamUrl, boolean metrics) {
        this(upstreamDelay, upstreamUrl, metrics, defaults().client());
    }

    public static LabSettings defaults() {
        return new Builder().build();
    }

    /** These settings with another mock upstream delay. */
    public LabSettings withUpstreamDelay(Duration delay) {
        return new LabSettings(delay, upstreamUrl, metrics, client);
    }

    /** Set from YAML and flags only. */
    static final class Builder extends KnobBuilder<LabSettings, Builder> {
        Builder() {
            super(KNOBS);
            set("client.loops", 1);
        }
    }
}
