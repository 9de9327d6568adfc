package keel.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import keel.amqp.AmqpConfigKeys;
import keel.amqp.AmqpOptions;
import keel.http.server.ConfigKeys;
import keel.http.server.ServerOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;

/**
 * Reads {@code keel.yaml}: nested maps whose dotted paths are the keys of {@link ConfigKeys}, {@link LabSettings} and {@link AmqpConfigKeys}
 * ({@code server: {port: 8080}} is {@code server.port}). Unknown keys and bad values are refused with
 * the key's name and the file's.
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
            throw new ConfigKeys.ConfigException("cannot read configuration file " + file + ": " + e.getMessage());
        }
        if (root == null || root.isMissingNode() || root.isNull()) return;
        if (!root.isObject()) throw new ConfigKeys.ConfigException(file + ": expected a map of keys at the top level");
        applyNode("", root, builder, lab, amqp, file.toString());
    }

    private static void applyNode(String prefix, JsonNode node, ServerOptions.Builder builder, LabSettings.Builder lab,
                                  AmqpOptions.Builder amqp, String source) {
        for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            String key = prefix.isEmpty() ? field.getKey() : prefix + "." + field.getKey();
            JsonNode value = field.getValue();
            if (value.isObject()) {
                applyNode(key, value, builder, lab, amqp, source);
            } else if (value.isValueNode() && !value.isNull()) {
                var labKey = LabSettings.byYaml(key);
                var amqpKey = AmqpConfigKeys.byYaml(key);
                if (labKey.isPresent()) LabSettings.apply(lab, labKey.get(), key, value.asText(), source);
                else if (amqpKey.isPresent()) AmqpConfigKeys.apply(amqp, amqpKey.get(), key, value.asText(), source);
                else ConfigKeys.applyYaml(builder, key, value.asText(), source);
            } else {
                throw new ConfigKeys.ConfigException("configuration key '" + key + "' in " + source + " needs a single value");
            }
        }
    }
}
