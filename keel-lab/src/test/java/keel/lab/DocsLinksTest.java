package keel.lab;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Keeps README.md and docs/ navigable: every relative link and anchor resolves, and the README links every page. */
class DocsLinksTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");

    @Test
    void everyRelativeLinkAndAnchorResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            for (String link : links(page)) {
                if (link.matches("^[a-z][a-z0-9+.-]*:.*")) continue;   // https:, mailto:
                int hash = link.indexOf('#');
                String file = hash < 0 ? link : link.substring(0, hash);
                Path target = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(target)) {
                    broken.add(ROOT.relativize(page) + ": " + link + " (no such file)");
                } else if (hash >= 0 && !anchors(target).contains(link.substring(hash + 1))) {
                    broken.add(ROOT.relativize(page) + ": " + link + " (no such heading)");
                }
            }
        }
        assertThat(broken).as("links that do not resolve").isEmpty();
    }

    @Test
    void theReadmeLinksEveryPageAndEveryPageLinksBack() throws IOException {
        List<String> fromReadme = links(ROOT.resolve("README.md"));
        for (Path page : pages()) {
            if (page.getFileName().toString().equals("README.md")) continue;
            String name = "docs/" + page.getFileName();
            assertThat(fromReadme).as("README.md links " + name).contains(name);
            assertThat(Files.readString(page).lines().limit(3).toList()).as(name + " links back to the README in its first lines")
                    .anyMatch(line -> line.contains("](../README.md)"));
        }
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        assertThat(pages).as("pages under docs/").hasSizeGreaterThan(1);
        return pages;
    }

    /** The link targets of a page, outside fenced code blocks and inline code. */
    private static List<String> links(Path page) throws IOException {
        List<String> links = new ArrayList<>();
        for (String line : prose(page)) {
            Matcher link = LINK.matcher(INLINE_CODE.matcher(line).replaceAll(""));
            while (link.find()) links.add(link.group(1));
        }
        return links;
    }

    /** The anchors of a page's headings, as GitHub makes them: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
    private static Set<String> anchors(Path page) throws IOException {
        Set<String> anchors = new HashSet<>();
        if (!page.toString().endsWith(".md")) return anchors;
        for (String line : prose(page)) {
            if (!line.startsWith("#")) continue;
            String slug = line.replaceFirst("^#+\\s*", "").strip().toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N}_ -]", "").replace(' ', '-');
            String anchor = slug;
            for (int n = 1; !anchors.add(anchor); n++) anchor = slug + "-" + n;
        }
        return anchors;
    }

    private static List<String> prose(Path page) throws IOException {
        List<String> prose = new ArrayList<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page)) {
            if (line.startsWith("```")) fenced = !fenced;
            else if (!fenced) prose.add(line);
        }
        return prose;
    }
}
