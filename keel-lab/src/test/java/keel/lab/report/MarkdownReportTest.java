package keel.lab.report;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MarkdownReportTest {
    @Test
    void summaryFirstThenSetupThenTablesThenLinks() {
        assertThat(MarkdownReport.render(Samples.blockedLoop(40, 3950))).isEqualTo("""
                # A blocked loop (`blocked-loop`)

                **event loop: 40.0 req/s**  \n\
                
                ## Set-up

                - load: 200 users

                ## Throughput

                | mode | req/s | errors |
                |---|---:|---:|
                | event-loop | 40 | 0 |
                | virtual-thread | 3950 (3930–3960) | 503=2 |

                ## Links

                - [server log](event-loop-1.log)

                """);
    }

    @Test
    void aSkippedScenarioIsItsReason() {
        assertThat(MarkdownReport.render(ScenarioResult.skipped("gateway", "Gateway", "no broker answers on 127.0.0.1:5672")))
                .isEqualTo("# Gateway (`gateway`)\n\n**skipped: no broker answers on 127.0.0.1:5672**  \n\n");
    }
}
