package keel.http.server;

import java.io.IOException;
import java.time.Duration;
import java.util.ServiceLoader;

/**
 * What prepares the JVM to serve before a server opens its port ({@code server.warmup}): the server
 * calls it once, after its key material and access log and before its routes run anything. It is
 * the one the server is handed ({@link HttpServer#start(ServerOptions, keel.http.router.Router, ServerObserver, Warmup)}),
 * or else the one provided as a service ({@link #provided}): Keel's own, {@code RequestPathWarmup}
 * (package {@code keel.http.warmup}), which runs the whole request path against a throwaway server
 * with the HTTP client. It is a component of its own so that the server need not know the client.
 *
 * <p>Its size ({@code server.warmup-requests}) decides what it buys. The default, {@value #DEFAULT_REQUESTS}
 * requests, touches every path once: the first request no longer initialises classes, starts threads
 * or fills buffers, and runs in the interpreter at about twice the compiled path's latency on
 * loopback while the JIT compiles the hot methods under real traffic, with the AOT cache's profiles
 * when there is one. From {@value #JIT_REQUESTS} requests on, the warm-up also waits for the JIT to
 * compile what it made hot: the first requests then run compiled code, and the port opens about a
 * second later on one CPU.
 */
public interface Warmup {
    /**
     * Each path a request can take once: the first touch of the request path. More buys little: a
     * path's second touch finds its classes loaded, and the interpreter runs it as slowly as its first
     * (32 requests opened the port about 40 ms later on one CPU, for a first request within about
     * 0.3 ms of this one's).
     */
    int DEFAULT_REQUESTS = 13;
    /** A warm-up of this many requests or more waits for the JIT to compile what it made hot. */
    int JIT_REQUESTS = 500;

    /** What a warm-up did: requests answered (any status), calls that failed, and how long it took. */
    record Report(int requests, int failures, Duration took) {
    }

    /** The first warm-up provided as a {@link ServiceLoader service}: Keel's own unless an application provides another. */
    static Warmup provided() {
        return ServiceLoader.load(Warmup.class, Warmup.class.getClassLoader()).findFirst()
                .orElseThrow(() -> new IllegalStateException("server.warmup is on, but no warm-up is provided"));
    }

    /** Runs before a server with {@code options}, which reports to {@code observer}, opens its port; blocks. */
    Report warmUp(ServerOptions options, ServerObserver observer) throws IOException;
}
