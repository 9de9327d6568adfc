package keel.http.server;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code compression.*} settings, checked as the options are built. */
class CompressionOptionsTest {
    @Test
    void theOptionsAreChecked() {
        assertThat(ServerOptions.builder().compressionTypes(List.of(" Text/* ", "application/*+JSON")).build().compression().types())
                .containsExactly("text/*", "application/*+json");
        for (String bad : List.of("text", "*/*", "text/", "/json", "text/a*", "application/*+", "text/plain;q=1", "a/b/c")) {
            assertThatThrownBy(() -> ServerOptions.builder().compressionTypes(List.of(bad)).build()).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> ServerOptions.builder().compressionLevel(0).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ServerOptions.builder().compressionLevel(10).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ServerOptions.builder().compressionMinSize(-1).build()).isInstanceOf(IllegalArgumentException.class);
    }
}
