package keel.lab.modes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/**
 * One way Keel can run the same handlers: the transport × threads matrix plus the event loop, or a
 * keel.yaml file of the user's ({@code bin/keel lab modes --config FILE}), whose {@code routes:}
 * section may set each route's execution.
 *
 * @param name                  the word in tables and folder names
 * @param flags                 the {@code bin/keel serve} flags that select it
 * @param hasEventLoops         whether it serves on the nio transport (loop lag means something)
 * @param runsHandlersOnTheLoop whether its handlers run on the loop (a blocking route then runs with offload)
 */
record Mode(String name, List<String> flags, boolean hasEventLoops, boolean runsHandlersOnTheLoop) {

    static final List<Mode> ALL = List.of(
            new Mode("nio-event-loop", List.of("--transport", "nio", "--execution", "event-loop"), true, true),
            new Mode("nio-worker-pool", List.of("--transport", "nio", "--execution", "worker-pool"), true, false),
            new Mode("nio-virtual-thread", List.of("--transport", "nio", "--execution", "virtual-thread"), true, false),
            new Mode("blocking-platform", List.of("--transport", "blocking", "--threads", "platform"), false, false),
            new Mode("blocking-virtual", List.of("--transport", "blocking", "--threads", "virtual"), false, false));

    /**
     * The mode a keel.yaml file describes, named after the file ({@code latency-on-workers.yaml} is
     * {@code latency-on-workers}). It is taken as it is: a route it puts on the event loop runs there
     * (with no offload unless the file sets {@code guard.on-blocked}).
     */
    static Mode of(Path config) {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(config.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + config, e);
        }
        String transport = root == null ? "nio" : root.path("server").path("transport").asText("nio");
        String name = config.getFileName().toString().replaceFirst("\\.ya?ml$", "");
        return new Mode(name, List.of("--config", config.toAbsolutePath().toString()), !transport.equals("blocking"), false);
    }
}
