package keel.lab;

import keel.amqp.AmqpOptions;
import keel.amqp.gateway.GatewayMode;
import keel.amqp.ingest.IngestMode;
import keel.http.Execution;
import keel.http.config.ConfigException;
import keel.http.config.KnobTable;
import keel.http.server.ConfigKeys;
import keel.http.server.ServerOptions;
import keel.http.server.Threads;
import keel.http.server.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigurationTest {
    @TempDir
    Path dir;

    private Path yaml(String text) throws Exception {
        return Files.writeString(dir.resolve("keel.yaml"), text);
    }

    @Test
    void readsEveryKindOfValueFromYamlAndLetsFlagsOverrideIt() throws Exception {
        Path file = yaml("""
                server:
                  port: 9090
                  transport: blocking
                  threads: platform
                  execution: worker-pool
                limits:
                  max-head-size: 16KiB
                  max-body-size: 1MiB
                timeouts:
                  head-read: 500ms
                  idle: 2m
                worker-pool:
                  threads: 8
                """);
        ServerOptions options = Main.options(List.of("--config", file.toString(), "--port", "7070"));
        assertThat(options.port()).isEqualTo(7070);
        assertThat(options.transport()).isEqualTo(Transport.BLOCKING);
        assertThat(options.threads()).isEqualTo(Threads.PLATFORM);
        assertThat(options.execution()).isEqualTo(Execution.WORKER_POOL);
        assertThat(options.limits().maxHeadSize()).isEqualTo(16 * 1024);
        assertThat(options.limits().maxBodySize()).isEqualTo(1024 * 1024);
        assertThat(options.timeouts().headRead()).isEqualTo(Duration.ofMillis(500));
        assertThat(options.timeouts().idle()).isEqualTo(Duration.ofMinutes(2));
        assertThat(options.pools().workerThreads()).isEqualTo(8);
        assertThat(options.pools().workerQueue()).isEqualTo(1000);
    }

    @Test
    void theLabSettingsComeFromYamlAndFlagsToo() throws Exception {
        Path file = yaml("""
                server:
                  warmup: false
                lab:
                  upstream-delay: 1s
                  upstream-url: http://10.0.0.7:8080
                """);
        Main.Config config = Main.config(List.of("--config", file.toString(), "--upstream-delay", "50ms"));
        assertThat(config.server().warmup()).isFalse();
        assertThat(config.lab().upstreamDelay()).isEqualTo(Duration.ofMillis(50));
        assertThat(config.lab().upstreamUrl()).isEqualTo("http://10.0.0.7:8080");
        assertThat(Main.config(List.of()).server().warmup()).as("bin/keel serve starts warm").isTrue();
        assertThat(Main.config(List.of()).server().logging().access()).as("bin/keel serve writes an access log").isTrue();
        assertThat(Main.config(List.of("--access-log", "false")).server().logging().access()).isFalse();
        assertThat(ServerOptions.defaults().logging().access()).as("the library's default").isFalse();
        assertThat(Main.config(List.of()).lab().upstreamDelay()).isEqualTo(Duration.ofMillis(200));
        assertThatThrownBy(() -> Main.config(List.of("--upstream-delay", "soon"))).hasMessageContaining("--upstream-delay");
        assertThatThrownBy(() -> Main.config(List.of("--upstream-url", "ftp://x"))).hasMessageContaining("http://");
    }

    @Test
    void theLabClientComesFromYamlAndFlagsOnOneLoopUnlessTold() throws Exception {
        Path file = yaml("""
                client:
                  request-timeout: 5s
                  pool:
                    max-connections: 64
                """);
        Main.Config config = Main.config(List.of("--config", file.toString(), "--client-max-connections", "32"));
        assertThat(config.lab().client().requestTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.lab().client().pool().maxConnections()).isEqualTo(32);
        assertThat(config.lab().client().loops()).as("calls made on a server loop stay on it").isEqualTo(1);
        assertThat(Main.config(List.of("--client-loops", "2")).lab().client().loops()).isEqualTo(2);
        assertThatThrownBy(() -> Main.config(List.of("--client-acquire-timeout", "soon"))).hasMessageContaining("--client-acquire-timeout");
        assertThat(Main.help().lines().filter(line -> line.contains("--client-loops"))).singleElement().asString().endsWith("(default 1)");
    }

    @Test
    void readsTheLogKeys() throws Exception {
        Path file = yaml("""
                log:
                  format: json
                  access-file: /var/log/keel/access.log
                  access-queue: 100
                  access-file-drop-behind: false
                """);
        ServerOptions.Logging logging = Main.options(List.of("--config", file.toString(), "--access-log-queue", "50")).logging();
        assertThat(logging).isEqualTo(new ServerOptions.Logging(keel.core.log.LogFormat.JSON, true, Path.of("/var/log/keel/access.log"), 50, false));
        assertThatThrownBy(() -> Main.options(List.of("--log-format", "xml"))).hasMessageContaining("--log-format").hasMessageContaining("text|json");
        assertThatThrownBy(() -> Main.options(List.of("--access-log-queue", "0"))).hasMessageContaining("--access-log-queue");
    }

    @Test
    void everyKeyRoundTripsThroughItsFlagAndItsYamlKey() {
        ServerOptions defaults = ServerOptions.defaults();
        for (KnobTable.Key<ServerOptions> key : ConfigKeys.ALL) {
            ServerOptions.Builder viaFlag = ServerOptions.builder();
            ConfigKeys.applyFlag(viaFlag, key.flag(), key.valueIn(defaults));
            assertThat(key.valueIn(viaFlag.build())).as(key.flag()).isEqualTo(key.valueIn(defaults));
            ServerOptions.Builder viaYaml = ServerOptions.builder();
            ConfigKeys.applyYaml(viaYaml, key.yaml(), key.valueIn(defaults), "test");
            assertThat(viaYaml.build()).as(key.yaml()).isEqualTo(defaults);
        }
    }

    @Test
    void readsTheGatewayAndIngestKeysFromYamlAndFlags() throws Exception {
        Path file = yaml("""
                amqp:
                  uri: amqp://keel:secret@broker.example:5673/prod
                gateway:
                  mode: worker-pool
                  confirm-timeout: 750ms
                ingest:
                  enabled: true
                  mode: sequential
                database:
                  url: jdbc:postgresql://db.example:5432/events
                """);
        Main.Config config = Main.config(List.of("--config", file.toString(), "--gateway-mode", "virtual-thread", "--port", "7070"));
        AmqpOptions amqp = config.amqp();
        assertThat(config.server().port()).isEqualTo(7070);
        assertThat(amqp.brokerAddress()).isEqualTo("amqp://broker.example:5673");
        assertThat(amqp.gateway().mode()).isEqualTo(GatewayMode.VIRTUAL_THREAD);
        assertThat(amqp.gateway().confirmTimeout()).isEqualTo(Duration.ofMillis(750));
        assertThat(amqp.ingest().enabled()).isTrue();
        assertThat(amqp.ingest().mode()).isEqualTo(IngestMode.SEQUENTIAL);
        assertThat(amqp.database().url()).isEqualTo("jdbc:postgresql://db.example:5432/events");
        assertThatThrownBy(() -> Main.config(List.of("--gateway-mode", "fast")))
                .hasMessageContaining("--gateway-mode").hasMessageContaining("event-loop|worker-pool|async|virtual-thread");
        assertThatThrownBy(() -> Main.config(List.of("--amqp-uri", "http://x"))).hasMessageContaining("amqp://");
    }

    @Test
    void aClusterOfAddressesDeclaresQuorumQueuesUnlessTold() throws Exception {
        assertThat(AmqpOptions.defaults().queueArguments()).as("one broker: classic").isNull();
        Path file = yaml("""
                amqp:
                  uri: amqp://keel:secret@rabbit-1:5672/prod
                  addresses: "rabbit-1:5672, rabbit-2, [::1]:5674"
                """);
        AmqpOptions cluster = Main.config(List.of("--config", file.toString())).amqp();
        assertThat(cluster.brokerAddress()).isEqualTo("amqp://rabbit-1:5672,rabbit-2:5672,[::1]:5674");
        assertThat(cluster.queueArguments()).isEqualTo(java.util.Map.of("x-queue-type", "quorum"));
        assertThat(Main.config(List.of("--config", file.toString(), "--amqp-queue-type", "classic")).amqp().queueArguments()).isNull();
        assertThat(Main.config(List.of("--amqp-queue-type", "quorum")).amqp().queueArguments()).isNotNull();
        assertThatThrownBy(() -> Main.config(List.of("--amqp-addresses", "rabbit-1:5672,rabbit-2:99999")))
                .hasMessageContaining("--amqp-addresses").hasMessageContaining("rabbit-2:99999");
        for (String bad : List.of("rabbit-1:", ":5672", "rabbit-1:0", "rabbit 1:5672", "[::1", "[::1]5672", "guest@rabbit-1")) {
            assertThatThrownBy(() -> Main.config(List.of("--amqp-addresses", bad))).as(bad)
                    .hasMessageContaining("--amqp-addresses").hasMessageContaining("not a host:port");
        }
        assertThatThrownBy(() -> AmqpOptions.builder().addresses(List.of("rabbit-1:70000")).build())
                .hasMessageContaining("amqp.addresses");
        assertThatThrownBy(() -> Main.config(List.of("--amqp-queue-type", "mirrored"))).hasMessageContaining("auto|classic|quorum");
    }

    @Test
    void everyGatewayKeyRoundTripsThroughItsFlagAndItsYamlKey() throws Exception {
        AmqpOptions defaults = AmqpOptions.defaults();
        for (KnobTable.Key<AmqpOptions> key : AmqpOptions.KNOBS.keys()) {
            Main.Config viaFlag = Main.config(List.of(key.flag(), key.valueIn(defaults)));
            assertThat(viaFlag.amqp()).as(key.flag()).isEqualTo(defaults);
            Path file = yaml(key.yaml().replace(".", ":\n  ") + ": \"" + key.valueIn(defaults) + "\"\n");
            assertThat(Main.config(List.of("--config", file.toString())).amqp()).as(key.yaml()).isEqualTo(defaults);
        }
    }

    @Test
    void refusesUnknownKeysNamingThemAndTheFile() throws Exception {
        Path file = yaml("server:\n  prot: 80\n");
        assertThatThrownBy(() -> Main.options(List.of("--config", file.toString())))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("server.prot").hasMessageContaining(file.toString());
    }

    @Test
    void refusesBadValuesNamingTheKey() throws Exception {
        Path file = yaml("timeouts:\n  idle: soon\n");
        assertThatThrownBy(() -> Main.options(List.of("--config", file.toString())))
                .hasMessageContaining("timeouts.idle").hasMessageContaining("'soon'").hasMessageContaining("duration");
        assertThatThrownBy(() -> Main.options(List.of("--port", "70000"))).hasMessageContaining("--port").hasMessageContaining("0..65535");
        assertThatThrownBy(() -> Main.options(List.of("--execution", "fast"))).hasMessageContaining("event-loop|worker-pool|virtual-thread");
        assertThatThrownBy(() -> Main.options(List.of("--porr", "1"))).hasMessageContaining("unknown flag '--porr'");
        assertThatThrownBy(() -> Main.options(List.of("--port"))).hasMessageContaining("--port needs a value");
        assertThatThrownBy(() -> Main.options(List.of("--write-low-water-mark", "128KiB")))
                .hasMessageContaining("write.low-water-mark");
    }

    @Test
    void serveRefusesABadConfigurationWithExitCode2AndAMessage() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(List.of("serve", "--threads", "many"), new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--threads").contains("platform|virtual");
    }

    @Test
    void helpListsEveryFlagWithItsKeyAndDefault() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(Main.run(List.of("--help"), new PrintStream(out), System.err)).isZero();
        for (KnobTable.Key<ServerOptions> key : ConfigKeys.ALL) {
            assertThat(out.toString()).contains(key.flag()).contains(key.yaml());
        }
        for (KnobTable.Key<AmqpOptions> key : AmqpOptions.KNOBS.keys()) {
            assertThat(out.toString()).contains(key.flag()).contains(key.yaml());
        }
    }
}
