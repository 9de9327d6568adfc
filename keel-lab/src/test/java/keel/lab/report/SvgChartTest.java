package keel.lab.report;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SvgChartTest {
    private static Document parse(String svg) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<String> texts(Document svg) {
        NodeList nodes = svg.getElementsByTagName("text");
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) texts.add(nodes.item(i).getTextContent());
        return texts;
    }

    @Test
    void aLineMapsItsPointsOntoThePlotArea() throws Exception {
        ScenarioResult.Chart chart = new ScenarioResult.Chart("t", "line", "seconds", "ms",
                List.of(new ScenarioResult.Line("a", List.of(new double[]{0, 0}, new double[]{10, 10}))));
        Document svg = parse(SvgChart.render(chart));

        Element line = (Element) svg.getElementsByTagName("polyline").item(0);
        assertThat(line.getAttribute("points")).isEqualTo("64.0,250.0 410.0,30.0");
        assertThat(line.getAttribute("stroke")).isEqualTo(SvgChart.PALETTE.getFirst());
        assertThat(texts(svg)).contains("t", "seconds", "ms", "a", "0", "2", "4", "6", "8", "10").doesNotContain("log scale");
    }

    @Test
    void valuesSpanningTwoDecadesGetALogAxisWithPowersOfTen() throws Exception {
        Document svg = parse(SvgChart.render(Samples.blockedLoop(40, 3950).charts().getFirst()));

        assertThat(svg.getElementsByTagName("polyline").getLength()).isEqualTo(2);
        assertThat(((Element) svg.getElementsByTagName("polyline").item(1)).getAttribute("points").split(" ")).hasSize(3);
        assertThat(texts(svg)).contains("log scale", "10", "100", "1000", "10000", "event-loop", "virtual-thread");
    }

    @Test
    void aBarChartHasOneBarPerSeriesFromZero() throws Exception {
        Document svg = parse(SvgChart.render(Samples.blockedLoop(40, 3950).charts().get(1)));
        List<String> titled = new ArrayList<>();
        NodeList rects = svg.getElementsByTagName("rect");
        for (int i = 0; i < rects.getLength(); i++) {
            Element rect = (Element) rects.item(i);
            if (rect.getElementsByTagName("title").getLength() == 1) titled.add(rect.getTextContent() + " h=" + rect.getAttribute("height"));
        }
        // y axis 0..4000: 3950 is 98.75 % of the 220 px plot height, 40 is 1 %
        assertThat(titled).containsExactly("event-loop: 40 h=2.2", "virtual-thread: 3950 h=217.3");
    }

    @Test
    void textIsEscaped() throws Exception {
        ScenarioResult.Chart chart = new ScenarioResult.Chart("a < b & \"c\"", "line", "x", "y", List.of());
        assertThat(texts(parse(SvgChart.render(chart)))).contains("a < b & \"c\"", "no data");
    }
}
