package keel.http.ws;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class Utf8ValidatorTest {
    private static boolean valid(int... values) {
        byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++) bytes[i] = (byte) values[i];
        return Utf8Validator.isValid(bytes, 0, bytes.length);
    }

    @Test
    void acceptsEveryEncodingLengthFedOneByteAtATime() {
        byte[] text = "aé€😀\u007f\u0080\uffff\udbff\udfff".getBytes(StandardCharsets.UTF_8);
        Utf8Validator validator = new Utf8Validator();
        for (int i = 0; i < text.length; i++) assertThat(validator.feed(text, i, 1)).as("byte %d", i).isTrue();
        assertThat(validator.isComplete()).isTrue();
    }

    @Test
    void refusesOverlongFormsSurrogatesAndCodePointsPastTheLast() {
        assertThat(valid(0xC0, 0x80)).as("overlong NUL").isFalse();
        assertThat(valid(0xC1, 0xBF)).as("overlong two-byte").isFalse();
        assertThat(valid(0xE0, 0x9F, 0xBF)).as("overlong three-byte").isFalse();
        assertThat(valid(0xF0, 0x8F, 0xBF, 0xBF)).as("overlong four-byte").isFalse();
        assertThat(valid(0xED, 0xA0, 0x80)).as("surrogate").isFalse();
        assertThat(valid(0xF4, 0x90, 0x80, 0x80)).as("past U+10FFFF").isFalse();
        assertThat(valid(0xF5, 0x80, 0x80, 0x80)).as("lead byte F5").isFalse();
        assertThat(valid(0x80)).as("lone continuation").isFalse();
        assertThat(valid(0xE2, 0x82)).as("truncated").isFalse();
        assertThat(valid(0xE2, 0x82, 0xAC)).as("euro sign").isTrue();
    }
}
