package keel.lab.modes;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Two real scrapes of a worker-pool server (2 threads, queue 2) before and after 90 requests to
 * {@code /benchmark/latency?ms=200}, 63 of them shed with 503; the expected quantiles were worked
 * out by hand from the bucket differences.
 */
class TimelineTest {

    static List<Scrape> beforeAndAfter() throws IOException {
        return List.of(new Scrape(0.0, Scrape.parse(GatlingStatsTest.resource("metrics-before.prom")), 20),
                new Scrape(3.0, Scrape.parse(GatlingStatsTest.resource("metrics-after.prom")), 25));
    }

    @Test
    void throughputIsTheRouteCountsGrowthPerSecond() throws IOException {
        List<double[]> points = new Timeline(beforeAndAfter(), "/benchmark/latency").throughput();

        assertThat(points).hasSize(1);
        assertThat(points.getFirst()).containsExactly(3.0, 30.0); // (27 answered 200 + 63 answered 503) ÷ 3 s
    }

    @Test
    void latencyQuantilesComeFromTheBucketsFilledBetweenScrapes() throws IOException {
        Timeline timeline = new Timeline(beforeAndAfter(), "/benchmark/latency");

        // 61 of 90 ≤ 0.5 ms, 63 ≤ 1 ms, 69 ≤ 250 ms, 90 ≤ 500 ms
        assertThat(timeline.latency(0.5).getFirst()[1]).isCloseTo(1000 * 0.0005 * 45 / 61, within(1e-9));
        assertThat(timeline.latency(0.99).getFirst()[1]).isCloseTo(1000 * (0.25 + 0.25 * (89.1 - 69) / 21), within(1e-9));
        assertThat(timeline.statusClasses()).isEqualTo(Map.of("2xx", 27.0, "5xx", 63.0));
        assertThat(timeline.rejected()).isEqualTo(63.0);
    }

    @Test
    void loopLagQuantilesSpanEveryLoop() throws IOException {
        Timeline timeline = new Timeline(beforeAndAfter(), "/benchmark/latency");

        // 81 lag probes in the interval: 79 ≤ 100 ms, 81 ≤ 250 ms
        assertThat(timeline.lag(0.99).getFirst()[1]).isCloseTo(1000 * (0.1 + 0.15 * (80.19 - 79) / 2), within(1e-9));
        assertThat(timeline.lagOverall(0.99)).isCloseTo(189.25, within(1e-9));
    }

    @Test
    void threadsAreTheSampledCounts() throws IOException {
        Timeline timeline = new Timeline(beforeAndAfter(), "/benchmark/latency");

        assertThat(timeline.peakThreads()).isEqualTo(25);
        assertThat(timeline.threads().getFirst()).containsExactly(3.0, 25.0);
        assertThat(timeline.collectors()).isEmpty();
    }

    @Test
    void aRouteWithoutTrafficHasNoPoints() throws IOException {
        Timeline timeline = new Timeline(beforeAndAfter(), "/benchmark/hello");

        assertThat(timeline.latency(0.99)).isEmpty();
        assertThat(timeline.throughput()).allSatisfy(point -> assertThat(point[1]).isZero());
    }

    @Test
    void parsesLabelsWithEscapesAndBareSamples() {
        List<keel.lab.measure.Scrape.Sample> samples = Scrape.parse("""
                # HELP jvm_gc_pause_seconds Time spent in GC pause
                jvm_gc_pause_seconds_count{action="end of minor GC",cause="Allocation Failure",gc="Copy"} 1
                odd{path="a\\"b",le="+Inf"} 2.5
                keel_http_server_connections_open 1.0
                """);

        assertThat(samples).containsExactly(
                new keel.lab.measure.Scrape.Sample("jvm_gc_pause_seconds_count", Map.of("action", "end of minor GC", "cause", "Allocation Failure", "gc", "Copy"), 1.0),
                new keel.lab.measure.Scrape.Sample("odd", Map.of("path", "a\"b", "le", "+Inf"), 2.5),
                new keel.lab.measure.Scrape.Sample("keel_http_server_connections_open", Map.of(), 1.0));
        assertThat(new Timeline(List.of(new Scrape(0, samples, 1)), "/").collectors()).containsExactly("Copy");
    }
}
