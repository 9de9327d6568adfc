package keel.lab.modes;

/**
 * One open-model injection phase as the Gatling Java DSL writes it, handed to
 * {@code keel.lab.gatling.RampSimulation} through {@link #spec()}.
 *
 * @param name    the phase's name, which its requests carry in Gatling's report
 * @param kind    {@code rampUsers} ({@code from} users in total, spread evenly), {@code constantUsersPerSec}
 *                ({@code from} per second) or {@code rampUsersPerSec} ({@code from} to {@code to} per second)
 * @param seconds how long the phase injects
 */
record Phase(String name, String kind, double from, double to, int seconds) {

    static Phase rampUsers(String name, int users, int seconds) {
        return new Phase(name, "rampUsers", users, users, seconds);
    }

    static Phase constantUsersPerSec(String name, double rate, int seconds) {
        return new Phase(name, "constantUsersPerSec", rate, rate, seconds);
    }

    static Phase rampUsersPerSec(String name, double from, double to, int seconds) {
        return new Phase(name, "rampUsersPerSec", from, to, seconds);
    }

    /** {@code name:kind:numbers…:seconds}, the format {@code RampSimulation} reads. */
    String spec() {
        return switch (kind) {
            case "rampUsersPerSec" -> name + ":" + kind + ":" + number(from) + ":" + number(to) + ":" + seconds;
            default -> name + ":" + kind + ":" + number(from) + ":" + seconds;
        };
    }

    /** The DSL call, for tables: {@code rampUsersPerSec(200).to(800).during(20 s)}. */
    String injection() {
        return switch (kind) {
            case "rampUsersPerSec" -> kind + "(" + number(from) + ").to(" + number(to) + ").during(" + seconds + " s)";
            default -> kind + "(" + number(from) + ").during(" + seconds + " s)";
        };
    }

    /** Users (one request each) the phase injects. */
    long users() {
        return switch (kind) {
            case "rampUsers" -> (long) from;
            case "constantUsersPerSec" -> Math.round(from * seconds);
            default -> Math.round((from + to) / 2 * seconds);
        };
    }

    /** The highest arrival rate of the phase, per second. */
    double peakRate() {
        return kind.equals("rampUsers") ? from / seconds : Math.max(from, to);
    }

    private static String number(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
