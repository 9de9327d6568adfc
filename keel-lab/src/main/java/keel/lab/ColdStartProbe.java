package keel.lab;

import keel.http.Response;
import keel.http.client.ClientOptions;
import keel.http.client.ClientRequest;
import keel.http.client.HttpClient;
import keel.http.server.Warmup;
import keel.http.warmup.RequestPathWarmup;

import java.net.URI;
import java.util.Arrays;

/**
 * The client half of {@code bench/cold-start.sh}: in a fresh JVM, a new {@link HttpClient} (with or
 * without {@link RequestPathWarmup#client(HttpClient, URI...)}) calls an upstream that is already running and warm, once, then
 * {@code calls} more times, one after the other. Prints one line of {@code key=value} pairs:
 * {@code first_us}, {@code median_us}, {@code p90_us} of those calls (blocking {@code send} from the
 * main thread, response body read), {@code warmup_ms} (the whole {@code warmup} call),
 * {@code warmup_requests} and {@code warmup_failures} (0 when warm-up is off). Exits 1 when a call fails or answers other than 200.
 *
 * <pre>{@code
 * java -cp 'keel-lab/target/keel-lab-*.jar:keel-lab/target/lib/*' keel.lab.ColdStartProbe \
 *     http://127.0.0.1:18101/upstream/refine-address true 100
 * }</pre>
 */
public final class ColdStartProbe {
    private static final String ADDRESS = "{\"street\":\"1 Canal Street\",\"city\":\"Amsterdam\",\"country\":\"NL\"}";

    private ColdStartProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3 || !args[1].matches("true|jit|false") || !args[2].matches("[1-9][0-9]{0,5}")) {
            System.err.println("usage: ColdStartProbe <upstream refine URL> <warmup true|jit|false> <calls 1..999999>");
            System.exit(2);
        }
        URI upstream = URI.create(args[0]);
        String warmup = args[1];
        int calls = Integer.parseInt(args[2]);
        try (HttpClient client = HttpClient.create(ClientOptions.defaults())) {
            long warmupStart = System.nanoTime();
            Warmup.Report report = switch (warmup) {
                case "true" -> RequestPathWarmup.client(client, upstream);
                case "jit" -> RequestPathWarmup.client(client, Warmup.JIT_REQUESTS, upstream); // waits for the JIT too
                default -> new Warmup.Report(0, 0, java.time.Duration.ZERO);
            };
            long warmupMillis = (System.nanoTime() - warmupStart) / 1_000_000;
            long first = timedCall(client, upstream);
            long[] steady = new long[calls];
            for (int i = 0; i < calls; i++) steady[i] = timedCall(client, upstream);
            Arrays.sort(steady);
            System.out.printf("first_us=%d median_us=%d p90_us=%d warmup_ms=%d warmup_requests=%d warmup_failures=%d%n",
                    first, steady[(calls - 1) / 2], steady[(int) Math.ceil(calls * 0.9) - 1],
                    warmupMillis, report.requests(), report.failures());
        }
    }

    /** One refine call, in microseconds from send to the whole body read. */
    private static long timedCall(HttpClient client, URI upstream) throws Exception {
        long start = System.nanoTime();
        Response response = client.send(ClientRequest.post(upstream.toString(), ADDRESS));
        long micros = (System.nanoTime() - start) / 1_000;
        if (response.status() != 200) {
            System.err.println("ColdStartProbe: " + upstream + " answered " + response.status());
            System.exit(1);
        }
        return micros;
    }
}
