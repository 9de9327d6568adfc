package keel.core.loop;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TimersTest {
    @Test
    void firesDueTimersInDeadlineOrderAndKeepsTheRest() {
        Timers timers = new Timers(16);
        List<String> fired = new ArrayList<>();
        timers.schedule(300, () -> fired.add("c"));
        timers.schedule(100, () -> fired.add("a"));
        timers.schedule(200, () -> fired.add("b"));
        assertThat(timers.runExpired(250)).isEqualTo(2);
        assertThat(fired).containsExactly("a", "b");
        assertThat(timers.nanosToNext(250)).isEqualTo(50);
        timers.runExpired(300);
        assertThat(fired).containsExactly("a", "b", "c");
        assertThat(timers.nanosToNext(300)).isEqualTo(-1);
    }

    @Test
    void timersWithTheSameDeadlineFireInSchedulingOrder() {
        Timers timers = new Timers(16);
        List<Integer> fired = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int n = i;
            timers.schedule(10, () -> fired.add(n));
        }
        timers.runExpired(10);
        assertThat(fired).containsExactly(0, 1, 2, 3, 4);
    }

    @Test
    void cancelledTimersNeverFireAndDoNotCountForTheNextDeadline() {
        Timers timers = new Timers(16);
        List<String> fired = new ArrayList<>();
        Timer early = timers.schedule(10, () -> fired.add("early"));
        timers.schedule(40, () -> fired.add("late"));
        early.cancel();
        assertThat(timers.nanosToNext(0)).isEqualTo(40);
        timers.runExpired(100);
        assertThat(fired).containsExactly("late");
    }

    @Test
    void handlesClockValuesAcrossLongOverflow() {
        Timers timers = new Timers(16);
        List<String> fired = new ArrayList<>();
        long now = Long.MAX_VALUE - 5;
        timers.schedule(now + 10, () -> fired.add("after-overflow"));
        assertThat(timers.runExpired(now)).isZero();
        assertThat(timers.runExpired(now + 10)).isEqualTo(1);
        assertThat(fired).containsExactly("after-overflow");
    }

    @Test
    void refusesTimersPastItsBound() {
        Timers timers = new Timers(2);
        timers.schedule(1, () -> { });
        Timer cancelled = timers.schedule(2, () -> { });
        cancelled.cancel();
        timers.schedule(3, () -> { }); // the cancelled one is purged to make room
        assertThatThrownBy(() -> timers.schedule(4, () -> { })).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("too many timers");
    }
}
