package keel.amqp;

import keel.http.server.HttpServer;

import java.util.function.Supplier;

/** One dependency reported on {@code /keel/health}. Called from any thread; must answer at once. */
public interface HealthCheck {
    /** The JSON field name ({@code broker}, {@code database}). */
    String name();

    boolean isUp();

    /** A JSON object with at least {@code "state"}. */
    String json();

    /**
     * The server itself, {@code server}: {@code starting} until {@code running} supplies it (routes
     * are declared before the server starts), {@code up}, then {@code stopping} from the moment its
     * stop begins ({@link HttpServer#isStopping()}), so that a load balancer takes it out during the
     * health grace, before it stops accepting.
     */
    static HealthCheck server(Supplier<HttpServer> running) {
        return new HealthCheck() {
            @Override
            public String name() {
                return "server";
            }

            @Override
            public boolean isUp() {
                HttpServer server = running.get();
                return server != null && !server.isStopping();
            }

            @Override
            public String json() {
                HttpServer server = running.get();
                return "{\"state\":\"" + (server == null ? "starting" : server.isStopping() ? "stopping" : "up") + "\"}";
            }
        };
    }
}
