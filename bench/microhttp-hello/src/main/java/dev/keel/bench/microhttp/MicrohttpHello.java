package dev.keel.bench.microhttp;

import org.microhttp.EventLoop;
import org.microhttp.Header;
import org.microhttp.LogEntry;
import org.microhttp.Logger;
import org.microhttp.Options;
import org.microhttp.Response;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * microhttp's hello world on GET /benchmark/hello (404 elsewhere), for bench/cold-start.sh: how fast
 * a small selector-loop server starts on this JVM. Option: --port N (default 8082).
 */
public final class MicrohttpHello {
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);

    private MicrohttpHello() {}

    public static void main(String[] args) throws Exception {
        int port = 8082;
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--port")) port = Integer.parseInt(args[i + 1]);
            else throw new IllegalArgumentException("unknown option " + args[i]);
        }
        Options options = Options.builder().withHost("127.0.0.1").withPort(port).withConcurrency(1).build();
        EventLoop loop = new EventLoop(options, new Logger() {
            @Override
            public boolean enabled() {
                return false;
            }

            @Override
            public void log(LogEntry... entries) {
            }

            @Override
            public void log(Exception e, LogEntry... entries) {
            }
        }, (request, callback) -> {
            boolean hello = request.method().equals("GET") && request.uri().equals("/benchmark/hello");
            callback.accept(new Response(hello ? 200 : 404, hello ? "OK" : "Not Found",
                    List.of(new Header("Content-Type", "text/plain")), hello ? HELLO : new byte[0]));
        });
        loop.start();
        System.out.println("microhttp serving on http://127.0.0.1:" + port);
        loop.join();
    }
}
