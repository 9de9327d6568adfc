package keel.lab.report;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FiguresTest {
    @Test
    void threeSignificantFiguresAtMost() {
        assertThat(Figures.format(4013.4)).isEqualTo("4013");
        assertThat(Figures.format(52.14)).isEqualTo("52.1");
        assertThat(Figures.format(5.214)).isEqualTo("5.21");
        assertThat(Figures.format(0.03125)).isEqualTo("0.031");
        assertThat(Figures.format(12)).isEqualTo("12");
        assertThat(Figures.format(Double.NaN)).isEqualTo("–");
    }

    @Test
    void aRepeatedFigureIsItsMedianWithTheRange() {
        assertThat(Figures.Cell.spread(50.3, 54.0, 52.14)).isEqualTo(new Figures.Cell("52.1 (50.3–54)", 52.14));
        assertThat(Figures.Cell.spread(3, 1, 2, 4)).isEqualTo(new Figures.Cell("2.50 (1–4)", 2.5));
        assertThat(Figures.Cell.spread(7, 7)).isEqualTo(new Figures.Cell("7", 7));
        assertThat(Figures.Cell.spread(Double.NaN, 5)).isEqualTo(new Figures.Cell("5", 5));
        assertThat(Figures.Cell.spread().text()).isEqualTo("–");
    }
}
