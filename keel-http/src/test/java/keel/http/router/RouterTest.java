package keel.http.router;

import keel.http.Execution;
import keel.http.Response;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RouterTest {
    private static final keel.http.Handler OK = request -> Response.ok("ok");

    @Test
    void matchesLiteralPathsAndExtractsDecodedParameters() {
        RouteTable table = new Router()
                .get("/users", OK)
                .get("/users/{id}", OK)
                .get("/users/{id}/orders/{order}", OK)
                .freeze();
        assertThat(table.match("GET", "/users")).isInstanceOf(RouteMatch.Found.class);
        RouteMatch.Found found = (RouteMatch.Found) table.match("GET", "/users/a%20b/orders/7");
        assertThat(found.route().path()).isEqualTo("/users/{id}/orders/{order}");
        assertThat(found.pathParams()).isEqualTo(Map.of("id", "a b", "order", "7"));
        assertThat(table.match("GET", "/users/")).isEqualTo(RouteMatch.NOT_FOUND);
        assertThat(table.match("GET", "/users/1/orders")).isEqualTo(RouteMatch.NOT_FOUND);
        assertThat(table.match("GET", "/nothing")).isEqualTo(RouteMatch.NOT_FOUND);
    }

    @Test
    void answersMethodNotAllowedWithTheMethodsThePathHas() {
        RouteTable table = new Router().get("/items/{id}", OK).put("/items/{id}", OK).post("/items", OK).freeze();
        assertThat(table.match("DELETE", "/items/3")).isEqualTo(new RouteMatch.MethodNotAllowed(Set.of("GET", "HEAD", "PUT")));
        assertThat(table.match("GET", "/items")).isEqualTo(new RouteMatch.MethodNotAllowed(Set.of("POST")));
    }

    @Test
    void headFallsBackToGet() {
        RouteTable table = new Router().get("/page", OK).freeze();
        assertThat(table.match("HEAD", "/page")).isInstanceOf(RouteMatch.Found.class);
    }

    @Test
    void routesDeclaredThroughAnExecutionViewCarryIt() {
        Router router = new Router().get("/default", OK);
        router.with(Execution.WORKER_POOL).get("/pooled", OK);
        RouteTable table = router.freeze();
        assertThat(((RouteMatch.Found) table.match("GET", "/default")).route().execution()).isNull();
        assertThat(((RouteMatch.Found) table.match("GET", "/pooled")).route().execution()).isEqualTo(Execution.WORKER_POOL);
    }

    @Test
    void configuredSettingsApplyOverTheCodesInOrderAndAreMarked() {
        Router router = new Router();
        router.with(Execution.EVENT_LOOP).limit(3).get("/items/{id}", OK).put("/items/{id}", OK);
        RouteTable table = router.freeze(List.of(
                RouteSettings.of("/items/{id}").execution(Execution.WORKER_POOL).deadline(Duration.ofSeconds(2)),
                RouteSettings.of("/items/{id}").method("PUT").execution(Execution.VIRTUAL_THREAD).maxBodySize(10)));
        Route get = ((RouteMatch.Found) table.match("GET", "/items/1")).route();
        Route put = ((RouteMatch.Found) table.match("PUT", "/items/1")).route();
        assertThat(get.execution()).isEqualTo(Execution.WORKER_POOL);
        assertThat(get.maxConcurrent()).as("the code's, not configured").isEqualTo(3);
        assertThat(get.configured()).containsExactlyInAnyOrder(Route.Setting.EXECUTION, Route.Setting.DEADLINE);
        assertThat(put.execution()).as("the later entry wins").isEqualTo(Execution.VIRTUAL_THREAD);
        assertThat(put.maxBodySizeOr(1000)).isEqualTo(10);
        assertThat(get.maxBodySizeOr(1000)).isEqualTo(1000);
        assertThat(put.deadlineOr(Duration.ZERO)).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void refusesDuplicatesBadPatternsAndLateRoutes() {
        Router router = new Router().get("/a", OK);
        assertThatThrownBy(() -> router.get("/a", OK)).hasMessageContaining("twice");
        assertThatThrownBy(() -> router.get("no-slash", OK)).hasMessageContaining("starts with '/'");
        assertThatThrownBy(() -> router.get("/x{y}", OK)).hasMessageContaining("whole segment");
        router.freeze();
        assertThatThrownBy(() -> router.get("/b", OK)).isInstanceOf(IllegalStateException.class).hasMessageContaining("frozen");
    }

    @Test
    void aMalformedEscapeInAPathParameterIsABadRequest() {
        RouteTable table = new Router().get("/f/{name}", OK).freeze();
        assertThatThrownBy(() -> table.match("GET", "/f/%zz"))
                .isInstanceOf(keel.http.HttpStatusException.class).hasMessageContaining("percent");
    }

    /** Routes compare by value, every component counted, as a record's generated methods would. */
    @Test
    void routesAreEqualByValue() {
        Route.Endpoint endpoint = new Route.Sync(request -> Response.ok("x"));
        Route route = new Route("GET", "/a/{id}", endpoint, Execution.EVENT_LOOP, 3, Duration.ofSeconds(1), 10, Set.of());
        Route same = new Route("GET", "/a/{id}", endpoint, Execution.EVENT_LOOP, 3, Duration.ofSeconds(1), 10, Set.of());
        assertThat(same).isEqualTo(route).hasSameHashCodeAs(route);
        assertThat(List.of(
                new Route("POST", "/a/{id}", endpoint, Execution.EVENT_LOOP, 3, Duration.ofSeconds(1), 10, Set.of()),
                new Route("GET", "/b/{id}", endpoint, Execution.EVENT_LOOP, 3, Duration.ofSeconds(1), 10, Set.of()),
                new Route("GET", "/a/{id}", new Route.Sync(request -> Response.ok("y")), Execution.EVENT_LOOP, 3, Duration.ofSeconds(1), 10, Set.of()),
                new Route("GET", "/a/{id}", endpoint, null, 3, Duration.ofSeconds(1), 10, Set.of()),
                new Route("GET", "/a/{id}", endpoint, Execution.EVENT_LOOP, 4, Duration.ofSeconds(1), 10, Set.of()),
                new Route("GET", "/a/{id}", endpoint, Execution.EVENT_LOOP, 3, null, 10, Set.of()),
                new Route("GET", "/a/{id}", endpoint, Execution.EVENT_LOOP, 3, Duration.ofSeconds(1), -1, Set.of()),
                new Route("GET", "/a/{id}", endpoint, Execution.EVENT_LOOP, 3, Duration.ofSeconds(1), 10, Set.of(Route.Setting.LIMIT))))
                .allSatisfy(other -> assertThat(other).isNotEqualTo(route));
    }
}
