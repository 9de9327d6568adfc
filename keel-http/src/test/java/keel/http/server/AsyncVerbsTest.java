package keel.http.server;

import keel.http.Response;
import keel.http.router.Router;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** Each verb's async registration answers its method through a real socket, with what the handler's stage completes with. */
class AsyncVerbsTest {
    private static TestServer server;
    private static HttpClient client;

    @BeforeAll
    static void start() {
        Router router = new Router()
                .getAsync("/items/{id}", req -> answer("got " + req.pathParam("id")))
                .postAsync("/items", req -> answer("posted " + req.bodyText()))
                .putAsync("/items/{id}", req -> answer("put " + req.pathParam("id") + " " + req.bodyText()))
                .deleteAsync("/items/{id}", req -> answer("deleted " + req.pathParam("id")))
                .patchAsync("/items/{id}", req -> answer("patched " + req.pathParam("id") + " " + req.bodyText()));
        server = TestServer.start(router);
        client = HttpClient.newHttpClient();
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    /** Completes on another thread, as an async handler's stage usually does. */
    private static CompletableFuture<Response> answer(String text) {
        return CompletableFuture.supplyAsync(() -> Response.ok(text));
    }

    private static String send(String method, String path, String body) throws Exception {
        HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body);
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(server.uri(path)).method(method, publisher).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(method).isEqualTo(200);
        return response.body();
    }

    @Test
    void getAsync() throws Exception {
        assertThat(send("GET", "/items/1", null)).isEqualTo("got 1");
    }

    @Test
    void postAsync() throws Exception {
        assertThat(send("POST", "/items", "apple")).isEqualTo("posted apple");
    }

    @Test
    void putAsync() throws Exception {
        assertThat(send("PUT", "/items/2", "pear")).isEqualTo("put 2 pear");
    }

    @Test
    void deleteAsync() throws Exception {
        assertThat(send("DELETE", "/items/3", null)).isEqualTo("deleted 3");
    }

    @Test
    void patchAsync() throws Exception {
        assertThat(send("PATCH", "/items/4", "plum")).isEqualTo("patched 4 plum");
    }
}
