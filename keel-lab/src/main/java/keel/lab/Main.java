package keel.lab;

import keel.amqp.AmqpOptions;
import keel.amqp.ingest.EventLoad;
import keel.core.log.Json;
import keel.core.log.Log;
import keel.core.log.LogFormat;
import keel.core.startup.StartupTimeline;
import keel.http.config.ConfigException;
import keel.http.config.ConfigValues;
import keel.http.server.ConfigKeys;
import keel.http.server.ServerOptions;
import keel.lab.scenario.LabCommand;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicReference;

/** The {@code bin/keel} commands. */
public final class Main {
    private static final Log LOG = Log.of(Main.class);
    /** {@code serve}'s flag without a value: print where the start's time went once the port is open. */
    private static final String STARTUP_REPORT = "--startup-report";
    static final int HEALTH_GRACE_SECONDS = 5;

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        // The broker client and Micrometer log through SLF4J: named here, its JDK-logging provider needs
        // no search of every jar on the class path at the first logger (and SLF4J need not say so).
        if (System.getProperty("slf4j.provider") == null) {
            System.setProperty("slf4j.provider", "org.slf4j.jul.JULServiceProvider");
            System.setProperty("slf4j.internal.verbosity", "WARN");
        }
        System.exit(run(List.of(args), System.out, System.err));
    }

    static int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        String command = args.isEmpty() ? "--help" : args.getFirst();
        if (command.equals("serve") || command.equals("aot-training")) StartupTimeline.begin();
        // The training run asks too (it was started without a cache: nothing to say), so the cache holds what this loads.
        if (command.equals("serve") || command.equals("lab") || command.equals("aot-training")) AotCache.reportUnusable(err);
        switch (command) {
            case "serve", "aot-training" -> {
                List<String> flags = new ArrayList<>(args.subList(1, args.size()));
                boolean startupReport = flags.remove(STARTUP_REPORT);
                Config config;
                try {
                    config = config(flags);
                } catch (ConfigException e) {
                    err.println("keel: " + e.getMessage());
                    return 2;
                }
                if (config == null) {
                    out.print(help());
                    return 0;
                }
                StartupTimeline.mark("configuration");
                if (command.equals("aot-training")) return AotTraining.run(config, out);
                try {
                    serve(config, startupReport, out);
                } catch (ConfigException e) { // a configured route that matches none of the app's
                    err.println("keel: " + e.getMessage());
                    return 2;
                }
                return 0;
            }
            case "lab" -> {
                return LabCommand.run(args.subList(1, args.size()), out, err);
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

    /** The server's options, the lab's own settings, and the gateway's and ingest pipeline's, read from the same flags and file. */
    record Config(ServerOptions server, LabSettings lab, AmqpOptions amqp) {
    }

    /** The server options of {@link #config}; null for {@code --help}. */
    static ServerOptions options(List<String> flags) {
        Config config = config(flags);
        return config == null ? null : config.server();
    }

    /** Defaults, then the YAML file given by {@code --config}, then the other flags; null for {@code --help}. */
    static Config config(List<String> flags) {
        ServerOptions.Builder builder = defaults();
        LabSettings.Builder lab = new LabSettings.Builder();
        AmqpOptions.Builder amqp = AmqpOptions.builder();
        for (int i = 0; i < flags.size(); i++) {
            if (flags.get(i).equals("--help") || flags.get(i).equals("-h")) return null;
            if (flags.get(i).equals("--config")) YamlConfig.apply(Path.of(value(flags, i)), builder, lab, amqp);
        }
        for (int i = 0; i < flags.size(); i += 2) {
            String flag = flags.get(i);
            String value = value(flags, i);
            if (flag.equals("--config")) continue;
            var labKey = LabSettings.KNOBS.byFlag(flag);
            var amqpKey = AmqpOptions.KNOBS.byFlag(flag);
            if (labKey.isPresent()) lab.apply(labKey.get(), flag, value, "the command line");
            else if (amqpKey.isPresent()) amqp.apply(amqpKey.get(), flag, value, "the command line");
            else ConfigKeys.applyFlag(builder, flag, value);
        }
        return new Config(ConfigKeys.build(builder::build), ConfigKeys.build(lab::build), ConfigKeys.build(amqp::build));
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
        } catch (ConfigException | NumberFormatException e) {
            err.println("keel: " + e.getMessage());
            return 2;
        }
    }

    /**
     * The library's defaults, except that the lab app starts warm, writes an access log and, when it
     * stops, answers {@code /keel/health} 503 for {@value #HEALTH_GRACE_SECONDS} s before it stops
     * accepting (the time a load balancer checking every second or so needs to take it out).
     */
    private static ServerOptions.Builder defaults() {
        return ServerOptions.builder().warmup(true).accessLog(true).healthGrace(Duration.ofSeconds(HEALTH_GRACE_SECONDS));
    }

    private static String value(List<String> flags, int i) {
        String flag = flags.get(i);
        if (!flag.startsWith("--")) throw new ConfigException("expected a flag, got '" + flag + "' (see 'bin/keel --help')");
        if (i + 1 >= flags.size()) throw new ConfigException("flag " + flag + " needs a value");
        return flags.get(i + 1);
    }

    private static void serve(Config config, boolean startupReport, PrintStream out) throws IOException, InterruptedException {
        Log.useFormat(config.server().logging().format()); // before anything logs, the warm-up included
        // Run once, by a signal or below: the server stops, then the broker and database connections close.
        AtomicReference<LabApp> started = new AtomicReference<>();
        FutureTask<Void> close = new FutureTask<>(() -> started.get().close(), null);
        // Before the start, not once the port is open: installing the handlers loads classes, and on one
        // CPU the first requests would wait for them (docs/warm-start.md).
        stopGracefullyOnSignals(started, close, out);
        LabApp app = LabApp.start(config.server(), config.lab(), config.amqp());
        started.set(app);
        StartupTimeline.end();
        if (LOG.isDebugEnabled()) LOG.debug("startup", "phases", StartupTimeline.summary());
        if (startupReport) say(out, "startup", StartupTimeline.report().stripTrailing());
        ServerOptions options = app.server().options();
        say(out, "serving", servingLine(options, app.server().port(), config.amqp()));
        app.server().awaitStop();
        // The server has stopped; the connections close after it, and main's System.exit must wait for them.
        close.run();
        try {
            close.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("closing failed", e.getCause());
        }
    }

    /**
     * The line that says the server is up. Appended, not concatenated: {@code +} over this many values
     * makes the JDK spin classes for it ({@code StringConcatFactory}), and {@code String.format} looks
     * up the locale's number symbols, either while the first requests come in (on one CPU they wait).
     */
    private static String servingLine(ServerOptions options, int port, AmqpOptions amqp) {
        return new StringBuilder(200).append("keel ").append(Version.VALUE).append(" serving on ")
                .append(options.tls().enabled() ? "https" : "http").append("://").append(options.host()).append(':').append(port)
                .append(" (transport=").append(options.transport().word())
                .append(", execution=").append(options.execution().word())
                .append(", threads=").append(options.threads().word())
                .append(", loops=").append(options.pools().loops())
                .append(", warmup=").append(options.warmup())
                .append(", access-log=").append(options.logging().access())
                .append(", gateway=").append(amqp.gateway().mode().word())
                .append(", ingest=").append(amqp.ingest().enabled() ? amqp.ingest().mode().word() : "off")
                .append(')').toString();
    }

    /** A line for the operator on standard output: the text itself, or with {@code log.format: json} a JSON object holding it. */
    private static void say(PrintStream out, String event, String text) {
        if (Log.format() == LogFormat.JSON) {
            StringBuilder line = new StringBuilder(256).append("{\"time\":\"").append(Instant.now()).append('"');
            Json.appendMember(line, "level", "INFO");
            Json.appendMember(line, "logger", Main.class.getName());
            Json.appendMember(line, "event", event);
            Json.appendMember(line, "message", text);
            out.println(line.append('}'));
        } else {
            out.println(text);
        }
        out.flush();
    }

    /**
     * SIGTERM (and Ctrl-C) stop the server gracefully within its grace period ({@code close}), then
     * exit with 0: a deliberate stop is a success. (Left to the JVM, SIGTERM would exit with 143.)
     * Before the app has {@code started}, nothing serves yet: a signal exits at once.
     */
    @SuppressWarnings("sunapi")
    private static void stopGracefullyOnSignals(AtomicReference<LabApp> started, FutureTask<Void> close, PrintStream out) {
        for (String name : List.of("TERM", "INT")) {
            sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> Thread.ofPlatform().name("keel-stop").start(() -> {
                LabApp app = started.get();
                if (app != null) {
                    var timeouts = app.server().options().timeouts();
                    say(out, "stopping", "keel: SIG" + name + ", stopping gracefully (health " + ConfigValues.duration(timeouts.healthGrace())
                            + " 503 first, then grace " + timeouts.grace().toSeconds() + " s)");
                    close.run();
                }
                System.exit(0);
            }));
        }
    }

    /**
     * The reference table of every knob (server, lab app and its client, gateway and ingest) with the library's
     * defaults, as {@code docs/configuration.md} holds it between its marker comments.
     */
    static String reference() {
        List<String> rows = new ArrayList<>(List.of("| YAML key | flag | default | meaning |", "| --- | --- | --- | --- |"));
        rows.addAll(ServerOptions.KNOBS.markdownRows());
        rows.addAll(LabSettings.KNOBS.markdownRows());
        rows.addAll(AmqpOptions.KNOBS.markdownRows());
        return String.join("\n", rows) + "\n";
    }

    static String help() {
        StringBuilder text = new StringBuilder("""
                Keel: an event-loop HTTP/1.1 server runtime and its lab.

                Usage:
                  bin/keel serve [--config keel.yaml] [flags]      serve the lab app (benchmark routes, gateway)
                  bin/keel serve --startup-report [flags]         ...and print where the start's time went, phase by phase
                  bin/keel publish-events --count N [--first F] [--prefix P] [flags]
                                                                  publish N device events to the ingest queue
                  bin/keel services up|down|status                start, stop or show RabbitMQ and PostgreSQL
                  bin/keel cluster up [--instances N] [-- flags]  N instances of serve behind HAProxy (also down, status,
                                                                  restart: one instance at a time)
                  bin/keel test [maven args]                      build and run every test (mvn verify on JDK 25)
                  bin/keel lab <scenario>… [--quick] [--out DIR]  run lab scenarios, write a report (bin/keel lab --help)
                  bin/keel lab compare A.json B.json              the ratios B/A of two lab runs' figures
                  bin/keel --help                                 this text

                The lab app serves GET /benchmark/hello, /benchmark/json (and both written async:
                /benchmark/hello-async, /benchmark/json-async), /benchmark/cpu?n=35,
                /benchmark/cpu-heavy?limit=10000, /benchmark/latency?ms=100, /benchmark/latency-async?ms=100,
                /benchmark/mixed and /benchmark/health, plus /metrics (Prometheus; --metrics false: off) and /keel/routes, and the
                WebSocket endpoints ws://HOST:PORT/ws/echo (echo) and /ws/fib (each text n answers n=Fibonacci(n)).
                Client scenarios: POST /orders/refine and GET /devices/{id}/status (?style=async|blocking)
                call the embedded mock upstream (POST /upstream/refine-address, GET /upstream/devices/{id}/{aspect}).
                POST /gateway/publish (RabbitMQ, answered 202 once confirmed) and /keel/health.
                --transport, --execution and --threads apply to every benchmark route, so the execution
                models can be compared on the same handlers.

                Configuration: defaults < the YAML file of --config < flags. Every flag has a YAML key:

                """);
        List<String> lines = new ArrayList<>(ServerOptions.KNOBS.helpLines(defaults().build()));
        lines.addAll(LabSettings.KNOBS.helpLines(LabSettings.defaults()));
        lines.addAll(AmqpOptions.KNOBS.helpLines(AmqpOptions.defaults()));
        lines.forEach(line -> text.append(line).append('\n'));
        text.append("""

                Each route's settings (YAML only): a routes: list, one entry per route pattern, over what the code declared:
                  routes:
                    - path: /gateway/publish
                      method: POST
                      execution: worker-pool
                      limit: 500
                      deadline: 2s
                      max-body: 1MiB
                """);
        for (ConfigKeys.RouteField field : ConfigKeys.ROUTE_FIELDS) {
            text.append(String.format("  %-26s %s%n", "routes[].%s".formatted(field.name()), field.help()));
        }
        text.append("""
                A pattern (or pattern and method) that matches none of the app's routes stops the start.

                Sizes take KiB/MiB suffixes (8KiB, 10MiB); durations ms/s/m (500ms, 10s, 2m).
                Unknown keys, unknown flags and bad values stop the start with a message naming them.
                """);
        return text.toString();
    }
}
