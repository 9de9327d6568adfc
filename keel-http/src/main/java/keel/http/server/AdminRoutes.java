package keel.http.server;

import keel.http.Execution;
import keel.http.Response;
import keel.http.config.ConfigValues;
import keel.http.router.Router;

import java.util.function.Supplier;

/**
 * Keel's own admin routes. {@code GET /keel/routes}: every route as JSON, with the execution it was
 * declared or configured with, where it runs now (the guard may have offloaded it), how often it
 * blocked a loop, its limit, deadline and body limit, and where each setting came from
 * ({@code default}, {@code code}, {@code configuration}, {@code guard}).
 */
public final class AdminRoutes {
    private AdminRoutes() {
    }

    /** Adds the admin routes; {@code server} supplies the running server (routes are declared before it starts). */
    public static Router register(Router router, Supplier<HttpServer> server) {
        return router.with(Execution.EVENT_LOOP).get("/keel/routes", request -> Response.json(routesJson(server.get())));
    }

    static String routesJson(HttpServer server) {
        StringBuilder json = new StringBuilder("{\"blockedLoopEvents\":").append(server.blockedLoopEvents())
                .append(",\"onBlocked\":\"").append(server.options().guard().onBlocked().word()).append("\",\"routes\":[");
        boolean first = true;
        for (RouteInfo route : server.routes()) {
            json.append(first ? "" : ",")
                    .append("{\"method\":").append(quote(route.method()))
                    .append(",\"path\":").append(quote(route.path()))
                    .append(",\"execution\":\"").append(route.execution().word())
                    .append("\",\"effective\":\"").append(route.effective().word())
                    .append("\",\"offloaded\":").append(route.offloaded())
                    .append(",\"blockedEvents\":").append(route.blockedEvents())
                    .append(",\"maxConcurrent\":").append(route.maxConcurrent())
                    .append(",\"deadline\":\"").append(ConfigValues.deadline(route.deadline()))
                    .append("\",\"maxBodySize\":\"").append(ConfigValues.size(route.maxBodySize()))
                    .append("\",\"sources\":{\"execution\":\"").append(route.sources().execution().word())
                    .append("\",\"maxConcurrent\":\"").append(route.sources().limit().word())
                    .append("\",\"deadline\":\"").append(route.sources().deadline().word())
                    .append("\",\"maxBodySize\":\"").append(route.sources().maxBodySize().word()).append("\"}}");
            first = false;
        }
        return json.append("]}").toString();
    }

    /** {@code text} as a JSON string literal, quotes and control characters escaped. */
    public static String quote(String text) {
        StringBuilder quoted = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                default -> {
                    if (c < 0x20) quoted.append(String.format("\\u%04x", (int) c));
                    else quoted.append(c);
                }
            }
        }
        return quoted.append('"').toString();
    }
}
