package keel.amqp;

import keel.http.Execution;
import keel.http.Response;
import keel.http.router.Router;

import java.util.List;

/**
 * {@code GET /keel/health}: {@code {"status":"up","checks":{"broker":{...},"database":{...}}}}, with
 * 200 when every check is up and 503 otherwise, so a load balancer can read the status code alone.
 */
public final class HealthRoute {
    private HealthRoute() {
    }

    public static Router register(Router router, List<? extends HealthCheck> checks) {
        List<HealthCheck> frozen = List.copyOf(checks);
        return router.with(Execution.EVENT_LOOP).get("/keel/health", request -> report(frozen));
    }

    static Response report(List<HealthCheck> checks) {
        boolean up = true;
        StringBuilder json = new StringBuilder("{\"checks\":{");
        for (int i = 0; i < checks.size(); i++) {
            HealthCheck check = checks.get(i);
            up &= check.isUp();
            json.append(i == 0 ? "" : ",").append('"').append(check.name()).append("\":").append(check.json());
        }
        json.append("},\"status\":\"").append(up ? "up" : "down").append("\"}");
        Response response = Response.json(json.toString());
        return up ? response : Response.bytes(503, "application/json", response.body()).header("Retry-After", "1");
    }
}
