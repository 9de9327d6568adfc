package keel.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import keel.amqp.AmqpOptions;
import keel.http.config.ConfigException;
import keel.http.server.ConfigKeys;
import keel.http.server.ServerOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads {@code keel.yaml}: nested maps whose dotted paths are the keys of the knobs of {@link ServerOptions}, {@link LabSettings} and {@link AmqpOptions}
 * ({@code server: {port: 8080}} is {@code server.port}), and the {@code routes:} list, one entry per
 * route pattern ({@link ConfigKeys#route}). Unknown keys and bad values are refused with the key's
 * name ({@code routes[0].execution}) and the file's.
 */
final class YamlConfig {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private YamlConfig() {
    }

    static void apply(Path file, ServerOptions.Builder builder, LabSettings.Builder lab, AmqpOptions.Builder amqp) {
        JsonNode root;
        try {
            root = YAML.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new ConfigException("cannot read configuration file " + file + ": " + e.getMessage());
        }
        if (root == null || root.isMissingNode() || root.isNull()) return;
        if (!root.isObject()) throw new ConfigException(file + ": expected a map of keys at the top level");
        applyNode("", root, builder, lab, amqp, file.toString());
    }

    private static void applyNode(String prefix, JsonNode node, ServerOptions.Builder builder, LabSettings.Builder lab,
                                  AmqpOptions.Builder amqp, String source) {
        for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            String key = prefix.isEmpty() ? field.getKey() : prefix + "." + field.getKey();
            JsonNode value = field.getValue();
            if (key.equals("routes")) {
                applyRoutes(value, builder, source);
            } else if (value.isObject()) {
                applyNode(key, value, builder, lab, amqp, source);
            } else if (value.isValueNode() && !value.isNull()) {
                var labKey = LabSettings.KNOBS.byYaml(key);
                var amqpKey = AmqpOptions.KNOBS.byYaml(key);
                if (labKey.isPresent()) lab.apply(labKey.get(), key, value.asText(), source);
                else if (amqpKey.isPresent()) amqp.apply(amqpKey.get(), key, value.asText(), source);
                else ConfigKeys.applyYaml(builder, key, value.asText(), source);
            } else {
                throw new ConfigException("configuration key '" + key + "' in " + source + " needs a single value");
            }
        }
    }

    private static void applyRoutes(JsonNode routes, ServerOptions.Builder builder, String source) {
        if (!routes.isArray()) throw new ConfigException("'routes' in " + source + " needs a list of routes (- path: /x …)");
        for (int i = 0; i < routes.size(); i++) {
            JsonNode entry = routes.get(i);
            if (!entry.isObject()) throw new ConfigException("routes[" + i + "] in " + source + " needs keys (path, method, execution, …)");
            Map<String, String> fields = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = entry.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                if (!field.getValue().isValueNode() || field.getValue().isNull()) {
                    throw new ConfigException("configuration key 'routes[" + i + "]." + field.getKey() + "' in " + source + " needs a single value");
                }
                fields.put(field.getKey(), field.getValue().asText());
            }
            builder.route(ConfigKeys.route(i, fields, source));
        }
    }
}
