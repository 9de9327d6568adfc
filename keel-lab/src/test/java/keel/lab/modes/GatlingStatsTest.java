package keel.lab.modes;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Reports captured from real runs of {@code RampSimulation} (Gatling 3.15.1), kept under src/test/resources. */
class GatlingStatsTest {

    static String resource(String name) throws IOException {
        try (InputStream in = GatlingStatsTest.class.getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void readsOneRowPerPhaseAfterTheTotal() throws IOException {
        List<GatlingStats.Row> rows = GatlingStats.parse(resource("gatling-3.15.1-all-ok.html"));

        assertThat(rows).containsExactly(
                new GatlingStats.Row("All Requests", 700, 700, 0, 39, 163, 260, 914, 62),
                new GatlingStats.Row("start", 100, 100, 0, 5, 279, 356, 356, 52),
                new GatlingStats.Row("plateau", 200, 200, 0, 4, 91, 111, 115, 19),
                new GatlingStats.Row("climb", 400, 400, 0, 90, 162, 201, 914, 86));
        assertThat(rows.get(1).successPercent()).isEqualTo(100.0);
    }

    @Test
    void countsFailedRequestsPerPhase() throws IOException {
        // 503s from a worker pool of 2 threads and a queue of 2 under 40 requests a second of 200 ms each
        List<GatlingStats.Row> rows = GatlingStats.parse(resource("gatling-3.15.1-with-ko.html"));

        assertThat(rows).containsExactly(
                new GatlingStats.Row("All Requests", 90, 27, 63, 5, 494, 788, 788, 133),
                new GatlingStats.Row("start", 10, 8, 2, 358, 788, 788, 788, 323),
                new GatlingStats.Row("burst", 80, 19, 61, 4, 471, 611, 611, 109));
        assertThat(rows.get(1).successPercent()).isEqualTo(80.0);
        assertThat(rows.get(2).successPercent()).isEqualTo(23.75);
    }

    @Test
    void aReportWithoutTheStatisticsTableIsAnError() {
        assertThatThrownBy(() -> GatlingStats.parse("<html><body>no table</body></html>"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no statistics column 'Total'");
    }
}
