package hello;

import keel.http.Execution;
import keel.http.Response;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;

/** Two routes: one answers on the event loop, the other blocks, so it runs on a virtual thread. */
public final class Hello {
    public static void main(String[] args) throws Exception {
        Router router = new Router();
        router.with(Execution.EVENT_LOOP)
                .get("/hello/{name}", req -> Response.ok("Hello, " + req.pathParam("name") + " from " + Thread.currentThread().getName() + "\n"));
        router.with(Execution.VIRTUAL_THREAD)
                .get("/slow", req -> {
                    Thread.sleep(100); // a blocking call: fine on a virtual thread, never on the loop
                    return Response.ok("Slept 100 ms on " + (Thread.currentThread().isVirtual() ? "a virtual thread" : "a platform thread") + "\n");
                });
        ServerOptions options = ServerOptions.builder().port(args.length > 0 ? Integer.parseInt(args[0]) : 8080).build();
        try (HttpServer server = HttpServer.start(options, router)) {
            System.out.println("hello: listening on port " + server.port());
            server.awaitStop();
        }
    }
}
