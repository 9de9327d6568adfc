package keel.lab.modes;

import java.util.List;

/**
 * A route and the seed-style ramps it gets: from a cold server, a gentle {@code rampUsers} start,
 * a {@code constantUsersPerSec} plateau, then a {@code rampUsersPerSec} climb.
 *
 * @param name   the word in tables and folder names
 * @param target path and query Gatling sends
 * @param route  the route pattern Keel's metrics label it with
 */
record Workload(String name, String target, String route, List<Phase> full, List<Phase> quick) {

    /** Microseconds per request: the rates stop where Gatling, on one core, still opens a connection per user in time. */
    static final Workload HELLO = new Workload("hello", "/benchmark/hello", "/benchmark/hello",
            List.of(Phase.rampUsers("start", 1000, 10), Phase.constantUsersPerSec("plateau", 200, 20),
                    Phase.rampUsersPerSec("climb", 200, 800, 20)),
            List.of(Phase.rampUsers("start", 50, 1), Phase.constantUsersPerSec("plateau", 100, 2),
                    Phase.rampUsersPerSec("climb", 100, 300, 2)));

    /** A sieve of about a millisecond per request: on the event loop it is the loop's own time. */
    static final Workload CPU = new Workload("cpu", "/benchmark/cpu-heavy?limit=100000", "/benchmark/cpu-heavy",
            List.of(Phase.rampUsers("start", 500, 10), Phase.constantUsersPerSec("plateau", 100, 20),
                    Phase.rampUsersPerSec("climb", 100, 300, 20)),
            List.of(Phase.rampUsers("start", 25, 1), Phase.constantUsersPerSec("plateau", 50, 2),
                    Phase.rampUsersPerSec("climb", 50, 150, 2)));

    /**
     * A 100 ms blocking sleep: concurrency is rate × 0.1 s, so 800/s keeps 80 in flight, within the
     * worker pool (200) and the blocking transport's platform threads (150).
     */
    static final Workload LATENCY = new Workload("latency", "/benchmark/latency?ms=100", "/benchmark/latency",
            List.of(Phase.rampUsers("start", 500, 10), Phase.constantUsersPerSec("plateau", 200, 20),
                    Phase.rampUsersPerSec("climb", 200, 800, 20)),
            List.of(Phase.rampUsers("start", 50, 1), Phase.constantUsersPerSec("plateau", 100, 2),
                    Phase.rampUsersPerSec("climb", 100, 300, 2)));

    static List<Workload> of(boolean quick) {
        return quick ? List.of(HELLO, LATENCY) : List.of(HELLO, CPU, LATENCY);
    }

    List<Phase> phases(boolean quick) {
        return quick ? this.quick : full;
    }

    /** A blocking route: on the event loop it runs with the guard's offload (see {@link ModesScenario}). */
    boolean blocks() {
        return this == LATENCY;
    }
}
