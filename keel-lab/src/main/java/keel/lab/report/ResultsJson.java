package keel.lab.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The JSON files of a run: {@code <scenario>/results.json} (one {@link ScenarioResult}) and
 * {@code results.json} (the {@link LabReport}). A cell without a number is written as the string
 * {@code "NaN"} and read back as NaN.
 */
public final class ResultsJson {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ResultsJson() {
    }

    public static void write(Path file, Object resultOrReport) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, JSON.writeValueAsString(resultOrReport) + "\n");
    }

    /** The scenario results in {@code file}: a run's {@code results.json} or one scenario's. */
    public static List<ScenarioResult> read(Path file) throws IOException {
        JsonNode root = JSON.readTree(file.toFile());
        if (root == null || !root.isObject()) throw new IOException(file + ": not a lab results file (no JSON object)");
        if (root.has("results")) return JSON.treeToValue(root, LabReport.class).results();
        if (root.has("scenario")) return List.of(JSON.treeToValue(root, ScenarioResult.class));
        throw new IOException(file + ": not a lab results file (neither \"results\" nor \"scenario\")");
    }
}
