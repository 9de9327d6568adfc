package keel.lab.scenario;

import keel.http.client.ClientRequest;
import keel.lab.measure.LoadDriver;
import keel.lab.measure.LoadResult;
import keel.lab.measure.MetricsSampler;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The common shape of a load scenario's run: a fresh Keel JVM on the server CPU, its metrics read
 * every second, a closed load from this JVM, then everything stopped (also when something throws).
 */
final class ServerUnderLoad {
    static final Duration READY = Duration.ofSeconds(60);

    private ServerUnderLoad() {
    }

    /** Starts a server with {@code flags}, logging to {@code <out>/<log>.log}. */
    static KeelProcess start(LabRun run, String log, String... flags) throws IOException, InterruptedException {
        return KeelProcess.start(run.out().resolve(log + ".log"), run.serverCpu(), READY, List.of(), flags);
    }

    /** Runs {@code users} users sending GET {@code path} to a fresh server for {@code duration}; the server is stopped after. */
    static LoadRun measure(LabRun run, String mode, String log, int users, Duration duration, Duration timeout,
                           String path, String... flags) throws IOException, InterruptedException {
        try (KeelProcess server = start(run, log, flags)) {
            String uri = server.uri(path).toString();
            return measure(server, mode, users, duration, timeout, user -> ClientRequest.get(uri));
        }
    }

    /** Runs the load against a server already started (the caller stops it). */
    static LoadRun measure(KeelProcess server, String mode, int users, Duration duration, Duration timeout,
                           IntFunction<ClientRequest> request) throws InterruptedException {
        MetricsSampler sampler = MetricsSampler.start(server, Duration.ofSeconds(1));
        LoadResult load;
        try {
            load = new LoadDriver(users, duration, timeout, request).run();
        } finally {
            sampler.close();
        }
        return new LoadRun(mode, load, sampler.intervals(), sampler.whole(), sampler.peakThreads(), server.gc());
    }

    /** "G1" when every run used G1, else each distinct GC ("Serial, G1"). */
    static String gcs(List<LoadRun> runs) {
        List<String> distinct = new ArrayList<>();
        for (LoadRun r : runs) if (!distinct.contains(r.gc())) distinct.add(r.gc());
        return String.join(", ", distinct);
    }
}
