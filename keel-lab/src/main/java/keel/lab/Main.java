package keel.lab;

import keel.amqp.AmqpConfigKeys;
import keel.amqp.AmqpOptions;
import keel.amqp.HealthRoute;
import keel.amqp.gateway.Gateway;
import keel.amqp.ingest.EventLoad;
import keel.amqp.ingest.Ingest;
import keel.http.router.Router;
import keel.http.server.AdminRoutes;
import keel.metrics.KeelMetrics;
import keel.http.server.ConfigKeys;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/** The {@code bin/keel} commands. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(List.of(args), System.out, System.err));
    }

    /** The server's options and the gateway's and ingest pipeline's, read from the same flags and file. */
    record Config(ServerOptions server, AmqpOptions amqp) {
    }

    static int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        String command = args.isEmpty() ? "--help" : args.getFirst();
        switch (command) {
            case "serve" -> {
                Config config;
                try {
                    config = config(args.subList(1, args.size()));
                } catch (ConfigKeys.ConfigException e) {
                    err.println("keel: " + e.getMessage());
                    return 2;
                }
                if (config == null) {
                    out.print(help());
                    return 0;
                }
                serve(config, out);
                return 0;
            }
            case "publish-events" -> {
                return publishEvents(args.subList(1, args.size()), out, err);
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

    /** The server's options of {@link #config}; null for {@code --help}. */
    static ServerOptions options(List<String> flags) {
        Config config = config(flags);
        return config == null ? null : config.server();
    }

    /** Defaults, then the YAML file given by {@code --config}, then the other flags; null for {@code --help}. */
    static Config config(List<String> flags) {
        ServerOptions.Builder builder = ServerOptions.builder();
        AmqpOptions.Builder amqp = AmqpOptions.builder();
        for (int i = 0; i < flags.size(); i++) {
            if (flags.get(i).equals("--help") || flags.get(i).equals("-h")) return null;
            if (flags.get(i).equals("--config")) YamlConfig.apply(Path.of(value(flags, i)), builder, amqp);
        }
        for (int i = 0; i < flags.size(); i += 2) {
            String flag = flags.get(i);
            String value = value(flags, i);
            if (flag.equals("--config")) continue;
            var amqpKey = AmqpConfigKeys.byFlag(flag);
            if (amqpKey.isPresent()) AmqpConfigKeys.apply(amqp, amqpKey.get(), flag, value, "the command line");
            else ConfigKeys.applyFlag(builder, flag, value);
        }
        return new Config(ConfigKeys.build(builder), AmqpConfigKeys.build(amqp));
    }

    /**
     * {@code publish-events --count N [--first F] [--prefix P] [flags]}: publishes device events
     * {@code P-F} to {@code P-(F+N-1)} to the ingest queue, confirmed (for {@code bench/ingest.sh}).
     */
    private static int publishEvents(List<String> args, PrintStream out, PrintStream err) throws Exception {
        int count = 10_000;
        int first = 0;
        String prefix = "event";
        List<String> flags = new ArrayList<>();
        try {
            for (int i = 0; i < args.size(); i += 2) {
                String value = value(args, i);
                switch (args.get(i)) {
                    case "--count" -> count = Integer.parseInt(value);
                    case "--first" -> first = Integer.parseInt(value);
                    case "--prefix" -> prefix = value;
                    default -> flags.addAll(List.of(args.get(i), value));
                }
            }
            Config config = config(flags);
            EventLoad.publish(config.amqp(), prefix, first, first + count);
            out.printf("published %d events %s-%d..%s-%d to %s%n", count, prefix, first, prefix, first + count - 1,
                    config.amqp().ingest().queue());
            return 0;
        } catch (ConfigKeys.ConfigException | NumberFormatException e) {
            err.println("keel: " + e.getMessage());
            return 2;
        }
    }

    private static String value(List<String> flags, int i) {
        String flag = flags.get(i);
        if (!flag.startsWith("--")) throw new ConfigKeys.ConfigException("expected a flag, got '" + flag + "' (see 'bin/keel --help')");
        if (i + 1 >= flags.size()) throw new ConfigKeys.ConfigException("flag " + flag + " needs a value");
        return flags.get(i + 1);
    }

    private static void serve(Config config, PrintStream out) throws IOException, InterruptedException {
        ServerOptions options = config.server();
        AtomicReference<HttpServer> running = new AtomicReference<>();
        Router router = BenchmarkRoutes.register(new Router());
        AdminRoutes.register(router, running::get);
        KeelMetrics metrics = new KeelMetrics();
        metrics.register(router);
        // Both connect in the background: without a broker or database the server still starts, and
        // the gateway route and /keel/health answer 503 saying why.
        Gateway gateway = Gateway.start(config.amqp());
        gateway.register(router);
        Ingest ingest = config.amqp().ingest().enabled() ? Ingest.start(config.amqp()) : null;
        HealthRoute.register(router, ingest == null ? List.of(gateway.broker()) : List.of(gateway.broker(), ingest));
        HttpServer server;
        try {
            server = HttpServer.start(options, router, metrics);
        } catch (IOException | RuntimeException e) {
            // The broker connections run non-daemon client threads: close them, or the JVM would outlive the failure.
            if (ingest != null) ingest.close();
            gateway.close();
            throw e;
        }
        running.set(server);
        stopGracefullyOnSignals(server, out);
        out.printf("keel %s serving on http://%s:%d (transport=%s, execution=%s, threads=%s, loops=%d, gateway=%s, ingest=%s)%n",
                Version.VALUE, options.host(), server.port(), options.transport().word(), options.execution().word(),
                options.threads().word(), options.pools().loops(), config.amqp().gateway().mode().word(),
                config.amqp().ingest().enabled() ? config.amqp().ingest().mode().word() : "off");
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
                  bin/keel serve [--config keel.yaml] [flags]   serve the lab app (benchmark routes, gateway)
                  bin/keel publish-events --count N [--first F] [--prefix P] [flags]
                                                               publish N device events to the ingest queue
                  bin/keel services up|down|status             start, stop or show RabbitMQ and PostgreSQL
                  bin/keel test [maven args]                   build and run every test (mvn verify on JDK 25)
                  bin/keel --help                              this text

                The lab app serves GET /benchmark/hello, /benchmark/json, /benchmark/cpu?n=35,
                /benchmark/cpu-heavy?limit=10000, /benchmark/latency?ms=100, /benchmark/latency-async?ms=100,
                /benchmark/mixed and /benchmark/health, plus /metrics (Prometheus) and /keel/routes;
                POST /gateway/publish (RabbitMQ, answered 202 once confirmed) and /keel/health.
                --transport, --execution and --threads apply to every benchmark route, so the execution
                models can be compared on the same handlers.

                Configuration: defaults < the YAML file of --config < flags. Every flag has a YAML key:

                """);
        ServerOptions defaults = ServerOptions.defaults();
        for (ConfigKeys.Key key : ConfigKeys.ALL) {
            text.append(String.format("  %-26s %-32s %s (default %s)%n", key.flag() + " V", key.yaml(), key.help(), key.valueIn(defaults)));
        }
        AmqpOptions amqpDefaults = AmqpOptions.defaults();
        for (AmqpConfigKeys.Key key : AmqpConfigKeys.ALL) {
            text.append(String.format("  %-26s %-32s %s (default %s)%n", key.flag() + " V", key.yaml(), key.help(), key.valueIn(amqpDefaults)));
        }
        text.append("""

                Sizes take KiB/MiB suffixes (8KiB, 10MiB); durations ms/s/m (500ms, 10s, 2m).
                Unknown keys, unknown flags and bad values stop the start with a message naming them.
                """);
        return text.toString();
    }
}
