package keel.core.loop;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TimersTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void aFailingTimerGoesToTheFailureSinkAndTheTimersDueWithItStillFire() {
        List<Throwable> failures = new ArrayList<>();
        Timers timers = new Timers(16, 0, failures::add);
        List<String> fired = new ArrayList<>();
        IllegalStateException boom = new IllegalStateException("boom");
        timers.schedule(100, () -> fired.add("a"));
        timers.schedule(150, () -> {
            throw boom;
        });
        timers.schedule(200, () -> fired.add("c"));
        assertThat(timers.runExpired(200)).isEqualTo(3);
        assertThat(fired).containsExactly("a", "c");
        assertThat(failures).containsExactly(boom);
        assertThat(timers.size()).isZero();
    }

    @Test
    void firesDueTimersInDeadlineOrderAndKeepsTheRest() {
        Timers timers = new Timers(16, 0, TimersTest::rethrow);
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
        Timers timers = new Timers(16, 0, TimersTest::rethrow);
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
        Timers timers = new Timers(16, 0, TimersTest::rethrow);
        List<String> fired = new ArrayList<>();
        Timer early = timers.schedule(10 * MS, () -> fired.add("early"));
        timers.schedule(40 * MS, () -> fired.add("late"));
        early.cancel();
        // The loop may wake at the cancelled deadline; then it learns the real one.
        assertThat(timers.runExpired(10 * MS)).isZero();
        assertThat(timers.nanosToNext(10 * MS)).isEqualTo(30 * MS);
        timers.runExpired(100 * MS);
        assertThat(fired).containsExactly("late");
        assertThat(timers.size()).isZero();
    }

    @Test
    void aTimerSeveralTurnsOfTheWheelAwayFiresAtItsDeadlineNotWhenItsBucketComesRoundBefore() {
        Timers timers = new Timers(16, 0, TimersTest::rethrow);
        List<String> fired = new ArrayList<>();
        timers.schedule(30 * SECOND, () -> fired.add("late"));
        timers.schedule(30 * SECOND - 8 * SECOND, () -> fired.add("a turn or two earlier"));
        for (long now = 0; now < 30 * SECOND; now += 7 * MS) {
            timers.runExpired(now);
            if (now < 22 * SECOND) assertThat(fired).isEmpty();
        }
        assertThat(fired).containsExactly("a turn or two earlier");
        assertThat(timers.nanosToNext(30 * SECOND - 1)).isBetween(0L, 1L);
        timers.runExpired(30 * SECOND);
        assertThat(fired).containsExactly("a turn or two earlier", "late");
    }

    @Test
    void aLoopThatStalledForManyTurnsFiresEverythingDueInDeadlineOrder() {
        Timers timers = new Timers(64, 0, TimersTest::rethrow);
        List<Long> fired = new ArrayList<>();
        for (long at : new long[] {20 * SECOND, 3 * MS, 9 * SECOND, 4_100 * MS, 60 * SECOND}) {
            timers.schedule(at, () -> fired.add(at));
        }
        assertThat(timers.runExpired(25 * SECOND)).isEqualTo(4);
        assertThat(fired).containsExactly(3 * MS, 4_100 * MS, 9 * SECOND, 20 * SECOND);
        assertThat(timers.nanosToNext(25 * SECOND)).isPositive().isLessThanOrEqualTo(35 * SECOND);
    }

    @Test
    void aTimerScheduledByAFiringTimerForNowFiresInTheNextRun() {
        Timers timers = new Timers(16, 0, TimersTest::rethrow);
        List<String> fired = new ArrayList<>();
        timers.schedule(5, () -> timers.schedule(5, () -> fired.add("second")));
        timers.runExpired(5);
        assertThat(fired).isEmpty();
        assertThat(timers.nanosToNext(5)).isZero();
        timers.runExpired(5);
        assertThat(fired).containsExactly("second");
    }

    @Test
    void aTimerCancelledByOneThatFiredBeforeItInTheSameRunStaysQuiet() {
        Timers timers = new Timers(16, 0, TimersTest::rethrow);
        List<String> fired = new ArrayList<>();
        Timer[] second = new Timer[1];
        timers.schedule(1, () -> second[0].cancel());
        second[0] = timers.schedule(2, () -> fired.add("second"));
        assertThat(timers.runExpired(10)).isEqualTo(1);
        assertThat(fired).isEmpty();
    }

    @Test
    void handlesClockValuesAcrossLongOverflow() {
        long now = Long.MAX_VALUE - 5;
        Timers timers = new Timers(16, now, TimersTest::rethrow);
        List<String> fired = new ArrayList<>();
        timers.schedule(now + 10, () -> fired.add("after-overflow"));
        assertThat(timers.runExpired(now)).isZero();
        assertThat(timers.nanosToNext(now)).isEqualTo(10);
        assertThat(timers.runExpired(now + 10)).isEqualTo(1);
        assertThat(fired).containsExactly("after-overflow");
    }

    @Test
    void refusesTimersPastItsBoundAndACancelledOneMakesRoomAtOnce() {
        Timers timers = new Timers(2, 0, TimersTest::rethrow);
        timers.schedule(1, () -> { });
        Timer cancelled = timers.schedule(2, () -> { });
        cancelled.cancel();
        timers.schedule(3, () -> { });
        assertThatThrownBy(() -> timers.schedule(4, () -> { })).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("too many timers");
    }

    @Test
    void armingAndCancellingAMillionTimersTouchesNoOtherTimer() {
        Timers timers = new Timers(1 << 20, 0, TimersTest::rethrow);
        SplittableRandom random = new SplittableRandom(7);
        List<Timer> armed = new ArrayList<>(1_000_000);
        for (int i = 0; i < 1_000_000; i++) {
            armed.add(timers.schedule(random.nextLong(60 * SECOND), () -> { }));
        }
        assertThat(timers.size()).isEqualTo(1_000_000);
        for (int i = armed.size() - 1; i >= 0; i -= 2) armed.get(i).cancel(); // from the back, then the front
        for (int i = 0; i < armed.size(); i += 2) armed.get(i).cancel();
        assertThat(timers.visits()).as("buckets or timers looked at").isZero();
        assertThat(timers.size()).isZero();
        assertThat(timers.nanosToNext(0)).isEqualTo(-1);
    }

    @Test
    void aMillionTimersFireEachOnceAndEachIsLookedAtOncePerTurnOfTheWheelItWaits() {
        Timers timers = new Timers(1 << 20, 0, TimersTest::rethrow);
        SplittableRandom random = new SplittableRandom(11);
        long[] count = new long[1];
        for (int i = 0; i < 1_000_000; i++) {
            timers.schedule(random.nextLong(10 * SECOND), () -> count[0]++);
        }
        long now = 0;
        while (timers.size() > 0) {
            now += MS;
            timers.runExpired(now);
        }
        assertThat(count[0]).isEqualTo(1_000_000);
        // About 2.5 turns on average (10 s over a wheel of about 4.3 s), each a visit when the bucket
        // runs and at most one when the next deadline is searched for, plus the buckets themselves.
        assertThat(timers.visits()).isLessThan(8_000_000L);
    }

    private static void rethrow(Throwable failure) {
        throw new AssertionError("a timer's task failed", failure);
    }
}
