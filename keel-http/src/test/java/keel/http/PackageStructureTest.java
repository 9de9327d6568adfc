package keel.http;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shape of keel-http's main code, read from its sources: its packages depend on each other one
 * way only (no package reaches itself through the packages it uses), and none holds more than a
 * quarter of the module's lines.
 */
class PackageStructureTest {
    private static final Path SOURCES = Path.of("src/main/java");
    /** A use of another keel.http package: an import, or a name written out in full. */
    private static final Pattern USE = Pattern.compile("\\bkeel\\.http(?:\\.([a-z]+(?:\\.[a-z]+)*))?\\.[A-Z]");

    @Test
    void noPackageReachesItselfThroughThePackagesItUses() {
        Map<String, Set<String>> uses = uses();
        assertThat(uses).as("packages read").containsKeys("keel.http", "keel.http.server", "keel.http.router");
        for (String start : uses.keySet()) {
            assertThat(pathBack(start, uses)).as("a cycle through " + start).isEmpty();
        }
    }

    @Test
    void theTwoTransportsShareOnlyWhatIsBelowThem() {
        Map<String, Set<String>> uses = uses();
        assertThat(uses.get("keel.http.server.nio")).as("what the nio transport uses").doesNotContain("keel.http.server.blocking");
        assertThat(uses.get("keel.http.server.blocking")).as("what the blocking transport uses").doesNotContain("keel.http.server.nio");
    }

    @Test
    void noPackageHoldsMoreThanAQuarterOfTheLines() {
        Map<String, Long> lines = new TreeMap<>();
        for (Path file : javaFiles()) lines.merge(packageOf(file), (long) read(file).size(), Long::sum);
        long total = lines.values().stream().mapToLong(Long::longValue).sum();
        assertThat(lines).allSatisfy((name, count) -> assertThat(count).as(name + " of " + total + " lines").isLessThanOrEqualTo(total / 4));
    }

    /** The packages {@code start} uses, directly or through others, that lead back to it: empty when none. */
    private static List<String> pathBack(String start, Map<String, Set<String>> uses) {
        List<String> path = new ArrayList<>();
        return reaches(start, start, uses, new TreeSet<>(), path) ? path : List.of();
    }

    private static boolean reaches(String from, String target, Map<String, Set<String>> uses, Set<String> seen, List<String> path) {
        for (String next : uses.getOrDefault(from, Set.of())) {
            path.add(next);
            if (next.equals(target) || (seen.add(next) && reaches(next, target, uses, seen, path))) return true;
            path.removeLast();
        }
        return false;
    }

    /** Each package and the other keel.http packages its files name. */
    private static Map<String, Set<String>> uses() {
        Map<String, Set<String>> uses = new TreeMap<>();
        for (Path file : javaFiles()) {
            String own = packageOf(file);
            Set<String> used = uses.computeIfAbsent(own, name -> new TreeSet<>());
            for (String line : read(file)) {
                if (line.startsWith("package ")) continue;
                Matcher use = USE.matcher(line);
                while (use.find()) {
                    String other = use.group(1) == null ? "keel.http" : "keel.http." + use.group(1);
                    if (!other.equals(own)) used.add(other);
                }
            }
        }
        return uses;
    }

    private static String packageOf(Path file) {
        return SOURCES.relativize(file.getParent()).toString().replace('/', '.');
    }

    private static List<Path> javaFiles() {
        try (Stream<Path> files = Files.walk(SOURCES)) {
            return files.filter(file -> file.toString().endsWith(".java") && !file.endsWith("module-info.java")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> read(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
