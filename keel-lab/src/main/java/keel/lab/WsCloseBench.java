package keel.lab;

import keel.http.client.WebSocketClient;
import keel.http.ws.WsClose;
import keel.http.ws.WsListener;
import keel.http.ws.WsOptions;
import keel.http.ws.WsSession;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The load driver of {@code bench/ws-close.sh}: {@code clients} sessions (at most {@code concurrency}
 * at once) each send one request to {@code /ws/fib}, wait for the answer and close at once. Prints
 * one line of {@code key=value}: answers lost (none, or a wrong one), abnormal closes (the close
 * stage failed or the server's Close was not 1000), and p50/p99/max of request→answer and of
 * close→closed (from {@code close()} to the end of the handshake), in milliseconds.
 *
 * <p>Modes: {@code sync} runs each client on a virtual thread that blocks on every step
 * ({@code send(..).join()}, the answer, {@code close().join()}); {@code async} chains the steps on
 * the client's event loop with no thread waiting.
 *
 * <pre>java -cp ... keel.lab.WsCloseBench ws://127.0.0.1:28080/ws/fib 2000 100 async</pre>
 */
public final class WsCloseBench {
    private static final long TIMEOUT_SECONDS = 10;

    /** What one client saw; times in nanoseconds, -1 when the step did not happen. */
    record Outcome(boolean answered, boolean cleanClose, long answerNanos, long closeNanos) {
    }

    private WsCloseBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: WsCloseBench ws://HOST:PORT/ws/fib CLIENTS CONCURRENCY sync|async");
            System.exit(2);
        }
        URI uri = URI.create(args[0]);
        int clients = Integer.parseInt(args[1]);
        int concurrency = Integer.parseInt(args[2]);
        boolean sync = switch (args[3]) {
            case "sync" -> true;
            case "async" -> false;
            default -> throw new IllegalArgumentException("mode must be sync or async: " + args[3]);
        };
        try (WebSocketClient client = WebSocketClient.create(WsOptions.defaults(), 1)) {
            run(client, uri, Math.min(clients, 300), concurrency, sync); // warm-up (JIT, pools), not reported
            long start = System.nanoTime();
            List<Outcome> outcomes = run(client, uri, clients, concurrency, sync);
            System.out.println(report(args[3], outcomes, System.nanoTime() - start));
        }
    }

    static List<Outcome> run(WebSocketClient client, URI uri, int clients, int concurrency, boolean sync) throws InterruptedException {
        Semaphore slots = new Semaphore(concurrency);
        ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
        for (int i = 0; i < clients; i++) {
            slots.acquire();
            int n = 30 + i % 60;
            CompletableFuture<Outcome> outcome = sync ? runBlocking(client, uri, n) : runAsync(client, uri, n);
            outcome.whenComplete((result, failure) -> {
                outcomes.add(failure == null ? result : new Outcome(false, false, -1, -1));
                slots.release();
            });
        }
        slots.acquire(concurrency);
        return new ArrayList<>(outcomes);
    }

    /** Synchronous style: a virtual thread waits on each step. */
    private static CompletableFuture<Outcome> runBlocking(WebSocketClient client, URI uri, int n) {
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            BlockingQueue<String> answers = new ArrayBlockingQueue<>(4);
            CompletableFuture<Integer> serverClose = new CompletableFuture<>();
            try {
                WsSession session = client.connect(uri, listener(answers::offer, serverClose)).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                long sent = System.nanoTime();
                session.send(Integer.toString(n)).toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                String answer = answers.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                long answered = System.nanoTime();
                session.close().toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                long closed = System.nanoTime();
                boolean clean = serverClose.get(TIMEOUT_SECONDS, TimeUnit.SECONDS) == WsClose.NORMAL;
                outcome.complete(new Outcome(expected(n).equals(answer), clean, answered - sent, closed - answered));
            } catch (Exception e) {
                outcome.completeExceptionally(e);
            }
        });
        return outcome;
    }

    /** Asynchronous style: each step starts from the previous one's callback on the client's loop. */
    private static CompletableFuture<Outcome> runAsync(WebSocketClient client, URI uri, int n) {
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        CompletableFuture<Integer> serverClose = new CompletableFuture<>();
        long[] times = new long[2];
        CompletableFuture<String> answer = new CompletableFuture<>();
        client.connect(uri, listener(answer::complete, serverClose)).thenAccept(session -> {
            times[0] = System.nanoTime();
            session.send(Integer.toString(n));
            answer.thenAccept(text -> {
                times[1] = System.nanoTime();
                session.close().whenComplete((ok, failure) -> {
                    long closed = System.nanoTime();
                    serverClose.whenComplete((code, ignored) -> outcome.complete(new Outcome(expected(n).equals(text),
                            failure == null && code != null && code == WsClose.NORMAL, times[1] - times[0], closed - times[1])));
                });
            });
        }).exceptionally(failure -> {
            outcome.completeExceptionally(failure);
            return null;
        });
        return outcome.orTimeout(3 * TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    private static WsListener listener(java.util.function.Consumer<String> onAnswer, CompletableFuture<Integer> serverClose) {
        return new WsListener() {
            @Override
            public void onText(WsSession session, String text) {
                onAnswer.accept(text);
            }

            @Override
            public void onClose(WsSession session, int code, String reason) {
                serverClose.complete(code);
            }
        };
    }

    private static String expected(int n) {
        return n + "=" + BenchmarkRoutes.fibonacci(n);
    }

    static String report(String mode, List<Outcome> outcomes, long wallNanos) {
        long lost = outcomes.stream().filter(o -> !o.answered()).count();
        long abnormal = outcomes.stream().filter(o -> !o.cleanClose()).count();
        long[] answers = outcomes.stream().filter(o -> o.answerNanos() >= 0).mapToLong(Outcome::answerNanos).sorted().toArray();
        long[] closes = outcomes.stream().filter(o -> o.closeNanos() >= 0).mapToLong(Outcome::closeNanos).sorted().toArray();
        return String.format(Locale.ROOT, "mode=%s clients=%d lost=%d abnormal_closes=%d answer_p50_ms=%.2f answer_p99_ms=%.2f answer_max_ms=%.2f"
                        + " close_p50_ms=%.2f close_p99_ms=%.2f close_max_ms=%.2f wall_s=%.2f",
                mode, outcomes.size(), lost, abnormal, percentile(answers, 50), percentile(answers, 99), percentile(answers, 100),
                percentile(closes, 50), percentile(closes, 99), percentile(closes, 100), wallNanos / 1e9);
    }

    /** Nearest-rank percentile in milliseconds (NaN for no samples). */
    static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) return Double.NaN;
        int rank = (int) Math.ceil(p / 100 * sorted.length);
        return sorted[Math.clamp(rank - 1, 0, sorted.length - 1)] / 1e6;
    }
}
