package keel.core.startup;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The timeline records between begin and end only, in order, and bounds itself. (One JVM-wide timeline: one test.) */
class StartupTimelineTest {
    @Test
    void recordsMarksBetweenBeginAndEndOnlyInOrderAndAtMostMaxPhases() {
        StartupTimeline.mark("before begin");
        assertThat(StartupTimeline.isRecording()).isFalse();

        StartupTimeline.begin();
        StartupTimeline.mark("first");
        StartupTimeline.mark("second");
        for (int i = 0; i < StartupTimeline.MAX_PHASES + 10; i++) StartupTimeline.mark("filler " + i);
        StartupTimeline.end();
        StartupTimeline.mark("after end");

        List<StartupTimeline.Phase> phases = StartupTimeline.phases();
        assertThat(phases).hasSize(StartupTimeline.MAX_PHASES);
        assertThat(phases).extracting(StartupTimeline.Phase::name)
                .startsWith("launcher (before the JVM)", "JVM start to main", "reading the JVM's start (management classes)", "first", "second")
                .doesNotContain("before begin", "after end");
        assertThat(phases).extracting(StartupTimeline.Phase::endedAt).isSorted();
        assertThat(phases).allSatisfy(phase -> assertThat(phase.took()).isGreaterThanOrEqualTo(Duration.ZERO));
        // Started by a JVM, not by a launcher script: the JVM's own start comes first and takes a while.
        assertThat(phases.get(1).took()).isPositive();
        assertThat(StartupTimeline.report()).contains("first").contains("second").contains("total, from the launch");
        assertThat(StartupTimeline.summary()).startsWith("launcher (before the JVM)=");
    }

    @Test
    void millisecondsAreWrittenWithOneDecimalRounded() {
        assertThat(StartupTimeline.millis(Duration.ZERO)).isEqualTo("0.0");
        assertThat(StartupTimeline.millis(Duration.ofNanos(1_234_567))).isEqualTo("1.2");
        assertThat(StartupTimeline.millis(Duration.ofNanos(1_250_000))).isEqualTo("1.3");
        assertThat(StartupTimeline.millis(Duration.ofNanos(999_960_000))).isEqualTo("1000.0");
        assertThat(StartupTimeline.millis(Duration.ofMillis(12_345))).isEqualTo("12345.0");
        assertThat(StartupTimeline.millis(Duration.ofNanos(-50_000_000))).isEqualTo("-50.0");
    }
}
