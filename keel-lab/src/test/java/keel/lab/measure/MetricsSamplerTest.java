package keel.lab.measure;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Intervals from two synthetic scrapes, 2 s apart: the figures the lab's tables and charts show. */
class MetricsSamplerTest {
    private static final String BEFORE = """
            # TYPE keel_http_server_requests_seconds histogram
            keel_http_server_requests_seconds_bucket{method="GET",route="/a",status="200",status_class="2xx",le="0.01"} 0
            keel_http_server_requests_seconds_bucket{method="GET",route="/a",status="200",status_class="2xx",le="0.1"} 0
            keel_http_server_requests_seconds_bucket{method="GET",route="/a",status="200",status_class="2xx",le="+Inf"} 0
            keel_http_server_requests_seconds_count{method="GET",route="/a",status="200",status_class="2xx"} 0
            keel_http_server_requests_seconds_count{method="GET",route="/metrics",status="200",status_class="2xx"} 7
            keel_event_loop_lag_seconds_bucket{loop="keel-loop-0",le="0.001"} 10
            keel_event_loop_lag_seconds_bucket{loop="keel-loop-0",le="0.1"} 10
            keel_event_loop_lag_seconds_bucket{loop="keel-loop-0",le="+Inf"} 10
            keel_event_loop_lag_seconds_bucket{loop="keel-loop-1",le="0.001"} 10
            keel_event_loop_lag_seconds_bucket{loop="keel-loop-1",le="0.1"} 10
            keel_event_loop_lag_seconds_bucket{loop="keel-loop-1",le="+Inf"} 10
            keel_event_loop_blocked_total{route="/a"} 1
            """;
    private static final String AFTER = """
            keel_http_server_requests_seconds_bucket{method="GET",route="/a",status="200",status_class="2xx",le="0.01"} 100
            keel_http_server_requests_seconds_bucket{method="GET",route="/a",status="200",status_class="2xx",le="0.1"} 150
            keel_http_server_requests_seconds_bucket{method="GET",route="/a",status="200",status_class="2xx",le="+Inf"} 150
            keel_http_server_requests_seconds_count{method="GET",route="/a",status="200",status_class="2xx"} 150
            keel_http_server_requests_seconds_bucket{method="GET",route="/a",status="503",status_class="5xx",le="0.01"} 50
            keel_http_server_requests_seconds_bucket{method="GET",route="/a",status="503",status_class="5xx",le="0.1"} 50
            keel_http_server_requests_seconds_bucket{method="GET",route="/a",status="503",status_class="5xx",le="+Inf"} 50
            keel_http_server_requests_seconds_count{method="GET",route="/a",status="503",status_class="5xx"} 50
            keel_http_server_requests_seconds_count{method="GET",route="/metrics",status="200",status_class="2xx"} 9
            keel_event_loop_lag_seconds_bucket{loop="keel-loop-0",le="0.001"} 110
            keel_event_loop_lag_seconds_bucket{loop="keel-loop-0",le="0.1"} 110
            keel_event_loop_lag_seconds_bucket{loop="keel-loop-0",le="+Inf"} 110
            keel_event_loop_lag_seconds_bucket{loop="keel-loop-1",le="0.001"} 10
            keel_event_loop_lag_seconds_bucket{loop="keel-loop-1",le="0.1"} 110
            keel_event_loop_lag_seconds_bucket{loop="keel-loop-1",le="+Inf"} 110
            keel_event_loop_blocked_total{route="/a"} 4
            """;

    @Test
    void anIntervalHasRateSuccessLatencyLagAndThreads() {
        long start = 1_000_000_000L;
        MetricsSampler.Point a = new MetricsSampler.Point(start, Scrape.parse(start, BEFORE), 20, 1000);
        MetricsSampler.Point mid = new MetricsSampler.Point(start + 1_000_000_000L, null, 45, 1500);
        MetricsSampler.Point b = new MetricsSampler.Point(start + 2_000_000_000L, Scrape.parse(start + 2_000_000_000L, AFTER), 30, 2000);
        List<MetricsSampler.Interval> intervals = MetricsSampler.intervals(List.of(a, mid, b), start);

        assertThat(intervals).hasSize(1);
        MetricsSampler.Interval i = intervals.getFirst();
        assertThat(i.atSeconds()).isEqualTo(2.0);
        assertThat(i.seconds()).isEqualTo(2.0);
        assertThat(i.requestsPerSecond()).isEqualTo(100.0);            // 200 requests (scrapes left out) in 2 s
        assertThat(i.successPercent()).isEqualTo(75.0);                // 150 of 200 were 2xx
        assertThat(i.p50Ms()).isCloseTo(10 * 100 / 150.0, within(1e-9)); // rank 100 of 150 in (0, 10 ms]
        assertThat(i.p99Ms()).isCloseTo(10 + 90 * (198 - 150) / 50.0, within(1e-9));
        assertThat(i.lagP99Ms()).isCloseTo(1 + 99 * 0.99, within(1e-9)); // loop 1's p99, the higher of the two loops
        assertThat(i.lagMaxMs()).isEqualTo(100.0);
        assertThat(i.blocked()).isEqualTo(3.0);
        assertThat(i.threads()).isEqualTo(30);
        assertThat(i.peakThreads()).isEqualTo(45);
        assertThat(i.cpuPercent()).isEqualTo(50.0);                    // 1000 ms of CPU in 2 s
    }

    @Test
    void scrapeReadsLabelsWithEscapesAndSkipsComments() {
        Scrape s = Scrape.parse(0, "# HELP x y\nx_total{route=\"/a \\\"b\\\"\",le=\"+Inf\"} 3.5 1700000000\nbad line here\n");
        assertThat(s.samples()).hasSize(1);
        assertThat(s.samples().getFirst().label("route")).isEqualTo("/a \"b\"");
        assertThat(s.sum("x_total", x -> true)).isEqualTo(3.5);
    }
}
