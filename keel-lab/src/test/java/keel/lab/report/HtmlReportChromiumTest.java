package keel.lab.report;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Opens a generated {@code index.html} in headless Chromium, takes a screenshot and checks that the
 * charts were drawn: inside the first plot area (found by its fill colour) the first series' colour
 * covers many pixels. Without a Chromium on the PATH the test is skipped, unless
 * {@code KEEL_REQUIRE_CHROMIUM=1} (as in CI), where it fails.
 */
class HtmlReportChromiumTest {
    @TempDir
    Path dir;

    @Test
    void chartsRenderInHeadlessChromium() throws Exception {
        String chromium = chromium();
        if (chromium == null) {
            assertThat(System.getenv("KEEL_REQUIRE_CHROMIUM")).as("KEEL_REQUIRE_CHROMIUM=1 but no chromium on the PATH").isNotEqualTo("1");
            Assumptions.abort("no chromium on the PATH (apt-get install -y chromium); the HTML charts were not checked");
        }
        Path html = dir.resolve("index.html");
        Files.writeString(html, HtmlReport.render(new LabReport("2026-11-21T09:00:00Z", 60, List.of("machine: test"),
                List.of(Samples.blockedLoop(40, 3950), ScenarioResult.skipped("gateway", "Gateway", "no broker")))));
        Path png = dir.resolve("shot.png");
        Process process = new ProcessBuilder(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--force-device-scale-factor=1", "--user-data-dir=" + dir.resolve("profile"), "--screenshot=" + png,
                "--window-size=1200,2000", html.toUri().toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("chromium.log").toFile()).start();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("chromium finished within 120 s").isTrue();
        assertThat(png).as("screenshot (chromium log: %s)", Files.readString(dir.resolve("chromium.log"))).exists();

        BufferedImage image = ImageIO.read(png.toFile());
        int[] box = boundingBox(image, rgb(SvgChart.PLOT_FILL));
        assertThat(box).as("a plot area in the screenshot").isNotNull();
        assertThat(box[2] - box[0]).isGreaterThan(200);
        int lineColour = rgb(SvgChart.PALETTE.getFirst());
        int drawn = 0;
        int notBackground = 0;
        for (int y = box[1]; y <= box[3]; y++) {
            for (int x = box[0]; x <= box[2]; x++) {
                int pixel = image.getRGB(x, y) & 0xffffff;
                if (pixel != rgb(SvgChart.PLOT_FILL)) notBackground++;
                if (close(pixel, lineColour)) drawn++;
            }
        }
        assertThat(drawn).as("pixels of the first line's colour in the plot area").isGreaterThan(100);
        assertThat(notBackground).as("pixels that are not the plot's background").isGreaterThan(500);
    }

    /** {x0, y0, x1, y1} of the first connected region of pixels of {@code colour} (scanning from the top), or null. */
    private static int[] boundingBox(BufferedImage image, int colour) {
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                if ((image.getRGB(x, y) & 0xffffff) != colour) continue;
                int x1 = x;
                int y1 = y;
                while (x1 + 1 < image.getWidth() && (image.getRGB(x1 + 1, y) & 0xffffff) == colour) x1++;
                while (y1 + 1 < image.getHeight() && (image.getRGB(x, y1 + 1) & 0xffffff) == colour) y1++;
                return new int[]{x, y, x1, y1};
            }
        }
        return null;
    }

    private static boolean close(int a, int b) {
        int dr = Math.abs((a >> 16 & 0xff) - (b >> 16 & 0xff));
        int dg = Math.abs((a >> 8 & 0xff) - (b >> 8 & 0xff));
        int db = Math.abs((a & 0xff) - (b & 0xff));
        return dr + dg + db < 60;
    }

    private static int rgb(String hex) {
        return Integer.parseInt(hex.substring(1), 16);
    }

    private static String chromium() {
        List<String> names = new ArrayList<>(List.of("chromium", "chromium-browser", "google-chrome"));
        for (String name : names) {
            for (String folder : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
                File candidate = new File(folder, name);
                if (candidate.canExecute()) return candidate.getPath();
            }
        }
        return null;
    }
}
