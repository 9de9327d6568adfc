package keel.amqp.gateway;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Binds a {@link Gateway} to Micrometer:
 *
 * <ul>
 *   <li>{@code keel_gateway_publishes_in_flight} (gauge: {@link Gateway#outstanding}, messages admitted
 *       and not answered yet)</li>
 *   <li>{@code keel_gateway_publishes_total} (counter per {@code result}: {@code confirmed} (acked and
 *       routed, 202), {@code nacked}, {@code returned}, {@code failed} and {@code timed_out} (504))</li>
 *   <li>{@code keel_gateway_rejected_total} (counter per {@code cause}, the gateway's 503s: {@code broker_connecting},
 *       {@code broker_down}, {@code broker_blocked}, {@code max_outstanding}, {@code channels_busy},
 *       {@code no_channel}, {@code stopping}). The server counts the same 503s as
 *       {@code keel_http_server_rejected_total{reason="handler"}}; the worker pool's or the
 *       virtual-thread limit's refusals of the route are the server's own reasons.</li>
 * </ul>
 *
 * Every result and cause is present from 0. Threads: any (see {@link GatewayObserver}); an event
 * costs one counter increment. One instance per gateway.
 */
public final class GatewayMetrics implements GatewayObserver {
    private final MeterRegistry registry;
    private final Counter[] published = new Counter[Result.values().length];
    private final Counter[] refused = new Counter[Refusal.values().length];

    public GatewayMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (Result result : Result.values()) {
            published[result.ordinal()] = Counter.builder("keel.gateway.publishes")
                    .description("Messages the gateway published, by what the broker made of them")
                    .tag("result", result.label())
                    .register(registry);
        }
        for (Refusal cause : Refusal.values()) {
            refused[cause.ordinal()] = Counter.builder("keel.gateway.rejected")
                    .description("Gateway requests answered 503 without publishing, by cause")
                    .tag("cause", cause.label())
                    .register(registry);
        }
    }

    @Override
    public void onStart(Gateway gateway) {
        Gauge.builder("keel.gateway.publishes.in.flight", gateway, Gateway::outstanding)
                .description("Messages admitted by the gateway and not answered yet")
                .register(registry);
    }

    @Override
    public void onPublished(Result result) {
        published[result.ordinal()].increment();
    }

    @Override
    public void onRefused(Refusal cause) {
        refused[cause.ordinal()].increment();
    }
}
