package keel.http;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ResponseTest {
    @Test
    void refusesHeaderValuesThatWouldSplitTheResponse() {
        Response ok = Response.ok("x");
        assertThatThrownBy(() -> ok.header("X-A", "1\r\nSet-Cookie: evil=1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\\r\\n");
        assertThatThrownBy(() -> ok.header("X-A", "a\u0000b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ok.header("X A", "1")).hasMessageContaining("header name");
        assertThatThrownBy(() -> Response.bytes(200, "text/plain\nX: y", new byte[0])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusesInterimStatusesAsFinalResponses() {
        assertThatThrownBy(() -> Response.status(101)).hasMessageContaining("not a final status");
        assertThatThrownBy(() -> Response.text(100, "x")).hasMessageContaining("not a final status");
        assertThat(Response.status(204).status()).isEqualTo(204);
    }

    @Test
    void copiesAreIndependentValues() {
        Response base = Response.status(204);
        Response tagged = base.header("ETag", "\"v1\"").closeConnection();
        assertThat(base.headers().size()).isZero();
        assertThat(base.closesConnection()).isFalse();
        assertThat(tagged.headers().get("etag")).isEqualTo("\"v1\"");
        assertThat(tagged.closesConnection()).isTrue();
        assertThat(tagged.status()).isEqualTo(204);
    }
}
