package keel.core.log;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;

import static org.assertj.core.api.Assertions.assertThat;

class JsonTest {
    private static String string(String text) {
        return Json.appendString(new StringBuilder(), text).toString();
    }

    private static String value(Object value) {
        return Json.appendValue(new StringBuilder(), value).toString();
    }

    @Test
    void escapesQuotesBackslashesAndEveryControlCharacter() {
        assertThat(string("a \"b\" \\ c")).isEqualTo("\"a \\\"b\\\" \\\\ c\"");
        assertThat(string("1\n2\r3\t4\b5\f6\u0000\u001f\u007f")).isEqualTo("\"1\\n2\\r3\\t4\\u00085\\u000c6\\u0000\\u001f\\u007f\"");
        assertThat(string("/path?q=1&r=<x>")).isEqualTo("\"/path?q=1&r=<x>\"");
    }

    @Test
    void writesEveryCharacterOutsidePrintableAsciiAsAnEscapeSoALineIsAscii() {
        assertThat(string("café \u2028 😀")).isEqualTo("\"caf\\u00e9 \\u2028 \\ud83d\\ude00\"");
        assertThat(string("\ud800 lone")).isEqualTo("\"\\ud800 lone\"");
    }

    @Test
    void writesNumbersAndBooleansAsThemselvesAndAnythingElseAsAString() {
        assertThat(value(42)).isEqualTo("42");
        assertThat(value(-7L)).isEqualTo("-7");
        assertThat(value(0.5)).isEqualTo("0.5");
        assertThat(value(new BigDecimal("1.25"))).isEqualTo("1.25");
        assertThat(value(true)).isEqualTo("true");
        assertThat(value(null)).isEqualTo("null");
        assertThat(value(Double.NaN)).isEqualTo("\"NaN\"");
        assertThat(value(Double.POSITIVE_INFINITY)).isEqualTo("\"Infinity\"");
        assertThat(value(LogFormat.JSON)).isEqualTo("\"JSON\"");
        assertThat(value(new IllegalStateException("no"))).isEqualTo("\"java.lang.IllegalStateException: no\"");
    }

    @Test
    void membersFollowTheFirst() {
        StringBuilder out = new StringBuilder("{\"a\":1");
        Json.appendMember(out, "b\"", "x");
        assertThat(out.append('}')).hasToString("{\"a\":1,\"b\\\"\":\"x\"}");
    }
}
