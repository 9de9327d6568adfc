package keel.lab.measure;

import keel.http.Response;
import keel.http.client.ClientOptions;
import keel.http.client.ClientRequest;
import keel.http.client.ClientTimeoutException;
import keel.http.client.HttpClient;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;

/**
 * A closed-model load: {@code users} virtual threads, each sending a request, waiting for its answer
 * and sending the next, for {@code duration}; then the calls in flight are let finish (up to the
 * request timeout) and the client is closed. It uses Keel's own client on one event loop with a
 * connection per user. Latency (send to last body byte) goes into one histogram per second of the
 * run, by when the answer arrived.
 */
public final class LoadDriver {
    private static final long HIGHEST_MICROS = Duration.ofMinutes(2).toNanos() / 1000;

    private final int users;
    private final Duration duration;
    private final Duration timeout;
    private final IntFunction<ClientRequest> request;
    private final Histogram[] seconds;
    private final LongAdder[] succeededBySecond;
    private final LongAdder requests = new LongAdder();
    private final LongAdder succeeded = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    private final LongAdder inWindow = new LongAdder();
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
    private long start;

    /**
     * @param users    concurrent users (and connections)
     * @param duration how long users start new requests
     * @param timeout  the most a call may take
     * @param request  the request a user sends, given the user's number
     */
    public LoadDriver(int users, Duration duration, Duration timeout, IntFunction<ClientRequest> request) {
        if (users < 1 || users > 10_000) throw new IllegalArgumentException("users must be 1..10000, got " + users);
        this.users = users;
        this.duration = duration;
        this.timeout = timeout;
        this.request = request;
        int slots = (int) Math.ceil((duration.toMillis() + timeout.toMillis()) / 1000.0) + 2;
        this.seconds = new Histogram[slots];
        this.succeededBySecond = new LongAdder[slots];
        for (int i = 0; i < slots; i++) {
            seconds[i] = new Histogram(HIGHEST_MICROS, 2);
            succeededBySecond[i] = new LongAdder();
        }
    }

    /** Runs the load; blocks for about the duration (plus the time calls in flight take to finish). */
    public LoadResult run() throws InterruptedException {
        ClientOptions options = ClientOptions.builder().loops(1).maxConnections(users).maxPendingAcquires(users * 2)
                .requestTimeout(timeout).responseTimeout(timeout).build();
        try (HttpClient client = HttpClient.create(options)) {
            start = System.nanoTime();
            long end = start + duration.toNanos();
            List<Thread> threads = new ArrayList<>(users);
            for (int u = 0; u < users; u++) {
                int user = u;
                threads.add(Thread.ofVirtual().name("lab-user-", u).start(() -> user(client, user, end)));
            }
            long deadline = end + timeout.toNanos() + Duration.ofSeconds(2).toNanos();
            for (Thread thread : threads) {
                long left = deadline - System.nanoTime();
                if (left > 0) thread.join(Duration.ofNanos(left));
            }
        }
        return result();
    }

    private void user(HttpClient client, int user, long end) {
        while (System.nanoTime() - end < 0) {
            long sent = System.nanoTime();
            String failure = null;
            try {
                Response answer = client.send(request.apply(user));
                if (answer.status() / 100 != 2) failure = Integer.toString(answer.status());
            } catch (ClientTimeoutException e) {
                timeouts.increment();
                failure = "timeout";
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                failure = e.getClass().getSimpleName();
            }
            long done = System.nanoTime();
            record(sent, done, end, failure);
            if (failure != null && !failure.matches("\\d+")) pause(); // a refused connection would spin
        }
    }

    private void record(long sent, long done, long end, String failure) {
        requests.increment();
        if (done - end <= 0) inWindow.increment();
        int slot = (int) Math.min(seconds.length - 1, (done - start) / 1_000_000_000L);
        Histogram histogram = seconds[slot];
        synchronized (histogram) {
            histogram.recordValue(Math.min(HIGHEST_MICROS, Math.max(1, (done - sent) / 1000)));
        }
        if (failure == null) {
            succeeded.increment();
            succeededBySecond[slot].increment();
        } else if (errors.size() < 32 || errors.containsKey(failure)) {
            errors.computeIfAbsent(failure, k -> new LongAdder()).increment();
        }
    }

    private static void pause() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private LoadResult result() {
        Histogram all = new Histogram(HIGHEST_MICROS, 2);
        List<LoadResult.Second> perSecond = new ArrayList<>();
        for (int i = 0; i < seconds.length; i++) {
            Histogram second = seconds[i];
            synchronized (second) {
                all.add(second);
                long count = second.getTotalCount();
                if (count == 0) continue;
                perSecond.add(new LoadResult.Second(i + 1, count, 100.0 * succeededBySecond[i].sum() / count,
                        ms(second.getValueAtPercentile(50)), ms(second.getValueAtPercentile(99)), ms(second.getMaxValue())));
            }
        }
        Map<String, Long> kinds = new TreeMap<>();
        errors.forEach((kind, count) -> kinds.put(kind, count.sum()));
        long total = requests.sum();
        boolean any = all.getTotalCount() > 0;
        return new LoadResult(users, duration.toMillis() / 1000.0, total, succeeded.sum(), total - succeeded.sum(), timeouts.sum(),
                inWindow.sum() / (duration.toMillis() / 1000.0),
                any ? ms(all.getValueAtPercentile(50)) : Double.NaN, any ? ms(all.getValueAtPercentile(90)) : Double.NaN,
                any ? ms(all.getValueAtPercentile(99)) : Double.NaN, any ? ms(all.getMaxValue()) : Double.NaN, kinds, perSecond);
    }

    private static double ms(long micros) {
        return micros / 1000.0;
    }
}
