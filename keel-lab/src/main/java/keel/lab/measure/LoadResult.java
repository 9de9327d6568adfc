package keel.lab.measure;

import java.util.List;
import java.util.Map;

/**
 * What a {@link LoadDriver} run saw from the client side. Latencies in ms (HdrHistogram, 2
 * significant digits); {@code requestsPerSecond} counts answers that arrived within the run's
 * duration; {@code errors} are non-2xx answers plus failed calls, {@code timeouts} the calls the
 * client gave up on (a subset of errors).
 */
public record LoadResult(int users, double seconds, long requests, long succeeded, long errors, long timeouts,
                         double requestsPerSecond, double p50Ms, double p90Ms, double p99Ms, double maxMs,
                         Map<String, Long> errorKinds, List<Second> perSecond) {

    /** One second of the run, by when answers arrived: answers, 2xx share, latency percentiles (ms). */
    public record Second(double at, long answers, double successPercent, double p50Ms, double p99Ms, double maxMs) {
    }

    public double successPercent() {
        return requests == 0 ? Double.NaN : 100.0 * succeeded / requests;
    }
}
