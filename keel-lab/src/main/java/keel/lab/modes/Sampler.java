package keel.lab.modes;

import keel.lab.scenario.KeelProcess;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Scrapes a server's {@code /metrics} (and its thread count) once a second on a thread of its own
 * until {@link #close}. Kept small and private to this scenario; the lab's general sampler may
 * replace it.
 */
final class Sampler implements AutoCloseable {
    private final KeelProcess keel;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<Scrape> scrapes = new ArrayList<>();
    private final Thread thread;
    private final long startedAt = System.nanoTime();
    private volatile boolean running = true;
    private int failures;

    private Sampler(KeelProcess keel) {
        this.keel = keel;
        this.thread = Thread.ofPlatform().daemon().name("modes-sampler").unstarted(this::loop);
    }

    static Sampler start(KeelProcess keel) {
        Sampler sampler = new Sampler(keel);
        sampler.thread.start();
        return sampler;
    }

    private void loop() {
        long tick = startedAt;
        while (running) {
            scrapeOnce();
            tick += 1_000_000_000L;
            long sleep = tick - System.nanoTime();
            if (sleep > 0) {
                try {
                    Thread.sleep(Duration.ofNanos(sleep));
                } catch (InterruptedException stop) {
                    return;
                }
            }
        }
    }

    private void scrapeOnce() {
        double seconds = (System.nanoTime() - startedAt) / 1e9;
        try {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(keel.uri("/metrics")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                failed();
                return;
            }
            Scrape scrape = new Scrape(seconds, Scrape.parse(response.body()), keel.threads());
            synchronized (scrapes) {
                scrapes.add(scrape);
            }
        } catch (IOException e) {
            failed();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    private void failed() {
        synchronized (scrapes) {
            failures++;
        }
    }

    /** Scrapes that answered, in order. */
    List<Scrape> scrapes() {
        synchronized (scrapes) {
            return List.copyOf(scrapes);
        }
    }

    /** Scrapes that timed out or failed. */
    int failures() {
        synchronized (scrapes) {
            return failures;
        }
    }

    /** Takes a last scrape and stops. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(5_000);
        scrapeOnce();
    }
}
