/** Micrometer meters for a Keel server, its client and its WebSockets, and the Prometheus scrape route. */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"}) // Micrometer has automatic modules only; its types are in this API
module keel.metrics {
    requires transitive keel.http;
    requires transitive micrometer.core;
    requires transitive micrometer.registry.prometheus;
    requires io.prometheus.metrics.model; // the registry a meter registry of our own clock is built on

    exports keel.metrics;
}
