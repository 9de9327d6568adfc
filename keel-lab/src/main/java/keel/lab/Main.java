package keel.lab;

import keel.http.router.Router;
import keel.http.server.AdminRoutes;
import keel.metrics.KeelMetrics;
import keel.http.server.ConfigKeys;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/** The {@code bin/keel} commands. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(List.of(args), System.out, System.err));
    }

    static int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        String command = args.isEmpty() ? "--help" : args.getFirst();
        switch (command) {
            case "serve" -> {
                ServerOptions options;
                try {
                    options = options(args.subList(1, args.size()));
                } catch (ConfigKeys.ConfigException e) {
                    err.println("keel: " + e.getMessage());
                    return 2;
                }
                if (options == null) {
                    out.print(help());
                    return 0;
                }
                serve(options, out);
                return 0;
            }
            case "help", "--help", "-h" -> {
                out.print(help());
                return 0;
            }
            default -> {
                err.println("keel: unknown command '" + command + "' (see 'bin/keel --help')");
                return 2;
            }
        }
    }

    /** Defaults, then the YAML file given by {@code --config}, then the other flags; null for {@code --help}. */
    static ServerOptions options(List<String> flags) {
        ServerOptions.Builder builder = ServerOptions.builder();
        for (int i = 0; i < flags.size(); i++) {
            if (flags.get(i).equals("--help") || flags.get(i).equals("-h")) return null;
            if (flags.get(i).equals("--config")) YamlConfig.apply(Path.of(value(flags, i)), builder);
        }
        for (int i = 0; i < flags.size(); i += 2) {
            String flag = flags.get(i);
            String value = value(flags, i);
            if (flag.equals("--config")) continue;
            ConfigKeys.applyFlag(builder, flag, value);
        }
        return ConfigKeys.build(builder);
    }

    private static String value(List<String> flags, int i) {
        String flag = flags.get(i);
        if (!flag.startsWith("--")) throw new ConfigKeys.ConfigException("expected a flag, got '" + flag + "' (see 'bin/keel --help')");
        if (i + 1 >= flags.size()) throw new ConfigKeys.ConfigException("flag " + flag + " needs a value");
        return flags.get(i + 1);
    }

    private static void serve(ServerOptions options, PrintStream out) throws IOException, InterruptedException {
        AtomicReference<HttpServer> running = new AtomicReference<>();
        Router router = BenchmarkRoutes.register(new Router());
        WsRoutes.register(router);
        AdminRoutes.register(router, running::get);
        KeelMetrics metrics = new KeelMetrics();
        metrics.register(router);
        HttpServer server = HttpServer.start(options, router, metrics);
        running.set(server);
        stopGracefullyOnSignals(server, out);
        out.printf("keel %s serving on http://%s:%d (transport=%s, execution=%s, threads=%s, loops=%d)%n",
                Version.VALUE, options.host(), server.port(), options.transport().word(), options.execution().word(),
                options.threads().word(), options.pools().loops());
        out.flush();
        server.awaitStop();
    }

    /**
     * SIGTERM (and Ctrl-C) stop the server gracefully within its grace period, then exit with 0: a
     * deliberate stop is a success. (Left to the JVM, SIGTERM would exit with 143.)
     */
    @SuppressWarnings("sunapi")
    private static void stopGracefullyOnSignals(HttpServer server, PrintStream out) {
        for (String name : List.of("TERM", "INT")) {
            sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> Thread.ofPlatform().name("keel-stop").start(() -> {
                out.println("keel: SIG" + name + ", stopping gracefully (grace " + server.options().timeouts().grace().toSeconds() + " s)");
                out.flush();
                server.stop();
                System.exit(0);
            }));
        }
    }

    static String help() {
        StringBuilder text = new StringBuilder("""
                Keel: an event-loop HTTP/1.1 server runtime and its lab.

                Usage:
                  bin/keel serve [--config keel.yaml] [flags]   serve the lab app (benchmark routes)
                  bin/keel test [maven args]                   build and run every test (mvn verify on JDK 25)
                  bin/keel --help                              this text

                The lab app serves GET /benchmark/hello, /benchmark/json, /benchmark/cpu?n=35,
                /benchmark/cpu-heavy?limit=10000, /benchmark/latency?ms=100, /benchmark/latency-async?ms=100,
                /benchmark/mixed and /benchmark/health, plus /metrics (Prometheus) and /keel/routes, and the
                WebSocket endpoints ws://HOST:PORT/ws/echo (echo) and /ws/fib (each text n answers n=Fibonacci(n)).
                --transport, --execution and --threads apply to every benchmark route, so the execution
                models can be compared on the same handlers.

                Configuration: defaults < the YAML file of --config < flags. Every flag has a YAML key:

                """);
        ServerOptions defaults = ServerOptions.defaults();
        for (ConfigKeys.Key key : ConfigKeys.ALL) {
            text.append(String.format("  %-26s %-32s %s (default %s)%n", key.flag() + " V", key.yaml(), key.help(), key.valueIn(defaults)));
        }
        text.append("""

                Sizes take KiB/MiB suffixes (8KiB, 10MiB); durations ms/s/m (500ms, 10s, 2m).
                Unknown keys, unknown flags and bad values stop the start with a message naming them.
                """);
        return text.toString();
    }
}
