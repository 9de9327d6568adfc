package keel.lab.gatling;

import io.gatling.javaapi.core.OpenInjectionStep;
import io.gatling.javaapi.core.PopulationBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.nothingFor;
import static io.gatling.javaapi.core.CoreDsl.rampUsers;
import static io.gatling.javaapi.core.CoreDsl.rampUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

/**
 * Open-model arrival-rate ramps against one route of a cold Keel server, configured by system
 * properties so the lab can run it in its own JVM:
 * <ul>
 *   <li>{@code keel.baseUrl}: {@code http://127.0.0.1:8080}</li>
 *   <li>{@code keel.route}: {@code /benchmark/hello}</li>
 *   <li>{@code keel.phases}: phases in order, separated by {@code ;}, each one of
 *       {@code name:rampUsers:USERS:SECONDS}, {@code name:constantUsersPerSec:RATE:SECONDS} or
 *       {@code name:rampUsersPerSec:FROM:TO:SECONDS} (see {@link Phase#parse}).</li>
 * </ul>
 * Each phase is its own scenario, named after the phase, whose injection waits for the phases
 * before it ({@code nothingFor}) and then runs its step: the phases follow each other without a gap
 * (a phase's last requests may still be in flight when the next one starts, as in one long
 * profile), and each request carries its phase's name, so {@code js/stats.json} has a group of
 * figures per phase. Every user sends one GET on a connection of its own and expects a 200.
 *
 * <p>Gatling warms its own HTTP stack up before the first phase, against a throwaway JDK server in
 * this JVM (never against Keel, which must meet the ramp cold, nor gatling.io, its default).
 */
public class RampSimulation extends Simulation {
    private final HttpServer warmUpTarget;

    public RampSimulation() {
        String baseUrl = required("keel.baseUrl");
        String route = required("keel.route");
        List<Phase> phases = Phase.parseAll(required("keel.phases"));
        warmUpTarget = warmUpTarget();
        HttpProtocolBuilder protocol = http.baseUrl(baseUrl)
                .warmUp("http://127.0.0.1:" + warmUpTarget.getAddress().getPort() + "/")
                .acceptHeader("*/*")
                .userAgentHeader("keel-lab-gatling");
        setUp(populations(phases, route)).protocols(protocol);
    }

    @Override
    public void after() {
        warmUpTarget.stop(0);
    }

    private static HttpServer warmUpTarget() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/", exchange -> {
                exchange.sendResponseHeaders(200, -1);
                exchange.close();
            });
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the warm-up target", e);
        }
    }

    /** One scenario per phase, each starting where the previous phases end. */
    static List<PopulationBuilder> populations(List<Phase> phases, String route) {
        List<PopulationBuilder> populations = new ArrayList<>();
        long offsetSeconds = 0;
        for (Phase phase : phases) {
            var scenario = scenario(phase.name()).exec(http(phase.name()).get(route).check(status().is(200)));
            populations.add(offsetSeconds == 0
                    ? scenario.injectOpen(phase.step())
                    : scenario.injectOpen(nothingFor(Duration.ofSeconds(offsetSeconds)), phase.step()));
            offsetSeconds += phase.seconds();
        }
        return populations;
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) throw new IllegalArgumentException("system property " + property + " is required");
        return value;
    }

    /**
     * One injection phase.
     *
     * @param kind {@code rampUsers} (from = users in total), {@code constantUsersPerSec} (from = rate)
     *             or {@code rampUsersPerSec} (from → to users per second)
     */
    public record Phase(String name, String kind, double from, double to, long seconds) {

        public Phase {
            if (name.isBlank() || !name.matches("[A-Za-z0-9_-]+")) throw new IllegalArgumentException("bad phase name '" + name + "'");
            if (seconds <= 0) throw new IllegalArgumentException("phase " + name + " needs a positive duration");
            if (from < 0 || to < 0) throw new IllegalArgumentException("phase " + name + " has a negative rate");
        }

        /** {@code name:kind:numbers…:seconds}. */
        public static Phase parse(String text) {
            String[] parts = text.trim().split(":");
            if (parts.length < 4) throw new IllegalArgumentException("bad phase '" + text + "'");
            String name = parts[0];
            String kind = parts[1];
            long seconds = Long.parseLong(parts[parts.length - 1]);
            double from = Double.parseDouble(parts[2]);
            return switch (kind) {
                case "rampUsers", "constantUsersPerSec" -> {
                    if (parts.length != 4) throw new IllegalArgumentException(kind + " takes one number and seconds: '" + text + "'");
                    yield new Phase(name, kind, from, from, seconds);
                }
                case "rampUsersPerSec" -> {
                    if (parts.length != 5) throw new IllegalArgumentException(kind + " takes two rates and seconds: '" + text + "'");
                    yield new Phase(name, kind, from, Double.parseDouble(parts[3]), seconds);
                }
                default -> throw new IllegalArgumentException("unknown injection '" + kind + "' in '" + text + "'");
            };
        }

        public static List<Phase> parseAll(String text) {
            List<Phase> phases = new ArrayList<>();
            for (String part : text.split(";")) {
                if (!part.isBlank()) phases.add(parse(part));
            }
            if (phases.isEmpty()) throw new IllegalArgumentException("no phases in '" + text + "'");
            return phases;
        }

        /** The Gatling open injection step this phase stands for. */
        public OpenInjectionStep step() {
            Duration during = Duration.ofSeconds(seconds);
            return switch (kind) {
                case "rampUsers" -> rampUsers((int) from).during(during);
                case "constantUsersPerSec" -> constantUsersPerSec(from).during(during);
                case "rampUsersPerSec" -> rampUsersPerSec(from).to(to).during(during);
                default -> throw new IllegalStateException(kind);
            };
        }

        /** Requests this phase sends. */
        public long users() {
            return switch (kind) {
                case "rampUsers" -> (long) from;
                case "constantUsersPerSec" -> Math.round(from * seconds);
                default -> Math.round((from + to) / 2 * seconds);
            };
        }
    }
}
