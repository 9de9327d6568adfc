package keel.lab;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import keel.http.HttpStatusException;
import keel.http.Request;
import keel.http.Response;
import keel.http.router.Router;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark surface users of other servers already know. No route sets an execution, so the
 * server's default (the {@code --execution} flag) applies to all of them and the modes compare the
 * same handlers.
 */
public final class BenchmarkRoutes {
    /**
     * Jackson's streaming writer, not its data binding: an {@code ObjectMapper} sets up the JDK's locale
     * data for its date format, about 0.1 s of the start before the port opens, which a payload of
     * three strings and a number does not need.
     */
    private static final JsonFactory JSON = new JsonFactory();
    private static final int MAX_SIEVE = 10_000_000;
    /** Responses are immutable values: fixed answers are built once, as a hand-tuned server would. */
    private static final Response HELLO = Response.ok("Hello, World!");
    private static final Response OK = Response.ok("OK");

    private BenchmarkRoutes() {
    }

    public static Router register(Router router) {
        // One payload written now, before the port opens: the server's warm-up never runs user routes.
        json();
        return router
                .get("/benchmark/hello", request -> HELLO)
                .get("/benchmark/json", request -> json())
                // The same two written as async handlers whose answer is ready at once: the async path's own cost.
                .getAsync("/benchmark/hello-async", request -> CompletableFuture.completedFuture(HELLO))
                .getAsync("/benchmark/json-async", request -> CompletableFuture.completedFuture(json()))
                .get("/benchmark/cpu", request -> {
                    int n = intParam(request, "n", 35, 0, 92);
                    return Response.ok("fibonacci(" + n + ") = " + fibonacci(n));
                })
                .get("/benchmark/cpu-heavy", request -> {
                    int limit = intParam(request, "limit", 10_000, 2, MAX_SIEVE);
                    return Response.ok("primes up to " + limit + ": " + countPrimes(limit));
                })
                .get("/benchmark/latency", request -> {
                    int ms = intParam(request, "ms", 100, 0, 60_000);
                    Thread.sleep(ms); // the blocking downstream stand-in: blocks whatever thread runs it
                    return Response.ok("slept " + ms + " ms");
                })
                .getAsync("/benchmark/latency-async", request -> {
                    int ms = intParam(request, "ms", 100, 0, 60_000);
                    // The same wait as /benchmark/latency, written async: no thread waits; a timer completes it.
                    return CompletableFuture.supplyAsync(() -> Response.ok("waited " + ms + " ms"),
                            CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS, Runnable::run));
                })
                .get("/benchmark/mixed", request -> {
                    long fib = fibonacci(20);
                    Thread.sleep(50);
                    return Response.ok("fibonacci(20) = " + fib + ", slept 50 ms");
                })
                .get("/benchmark/health", request -> OK);
    }

    /** {@code {"status":"ok","timestamp":<now>,"data":{"message":"Hello, World!","server":"keel","version":<version>}}} */
    private static Response json() {
        ByteArrayOutputStream body = new ByteArrayOutputStream(128);
        try (JsonGenerator json = JSON.createGenerator(body)) {
            json.writeStartObject();
            json.writeStringField("status", "ok");
            json.writeNumberField("timestamp", System.currentTimeMillis());
            json.writeObjectFieldStart("data");
            json.writeStringField("message", "Hello, World!");
            json.writeStringField("server", "keel");
            json.writeStringField("version", Version.VALUE);
            json.writeEndObject();
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing into memory failed", e);
        }
        return Response.json(body.toByteArray());
    }

    /** Iterative, so the cost is linear in n; 92 is the largest n whose value fits a long. */
    static long fibonacci(int n) {
        long previous = 0;
        long current = 1;
        if (n == 0) return 0;
        for (int i = 1; i < n; i++) {
            long next = previous + current;
            previous = current;
            current = next;
        }
        return current;
    }

    /** Sieve of Eratosthenes: the number of primes {@code <= limit}. */
    static int countPrimes(int limit) {
        boolean[] composite = new boolean[limit + 1];
        int count = 0;
        for (int i = 2; i <= limit; i++) {
            if (composite[i]) continue;
            count++;
            for (long multiple = (long) i * i; multiple <= limit; multiple += i) composite[(int) multiple] = true;
        }
        return count;
    }

    static int intParam(Request request, String name, int fallback, int min, int max) {
        String text = request.queryParam(name).orElse(null);
        if (text == null) return fallback;
        try {
            int value = Integer.parseInt(text.trim());
            if (value >= min && value <= max) return value;
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new HttpStatusException(400, "query parameter '" + name + "' must be an integer in " + min + ".." + max + ", got '" + text + "'");
    }
}
