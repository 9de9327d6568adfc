package keel.http.execution;

import keel.http.Headers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class AcceptEncodingTest {

    @ParameterizedTest(name = "[{0}]")
    @ValueSource(strings = {"gzip", "GZIP", "x-gzip", "gzip, deflate, br", "br;q=1.0, gzip;q=0.8, *;q=0.1", "*", "gzip;q=0.5",
            "*;q=0, gzip", "gzip;q=0.5, identity;q=0.5", "gzip;level=9"})
    void gzipIsPreferred(String acceptEncoding) {
        assertThat(AcceptEncoding.prefersGzip(Headers.of("Accept-Encoding", acceptEncoding))).isTrue();
    }

    @ParameterizedTest(name = "[{0}]")
    @ValueSource(strings = {"gzip;q=0", "gzip;q=0.000", "gzip; Q=0", "*;q=0", "gzip;q=0, *", "br, deflate", "identity", "",
            "gzip;q=0.5, identity", "gzip;q=0.4, *;q=0.5", "gzip;q=1.5", "gzip;q=abc", "gzip;q=0.1234"})
    void gzipIsNotPreferred(String acceptEncoding) {
        assertThat(AcceptEncoding.prefersGzip(Headers.of("Accept-Encoding", acceptEncoding))).isFalse();
    }

    @Test
    void noFieldMeansNoCompression() {
        assertThat(AcceptEncoding.prefersGzip(Headers.empty())).isFalse();
    }

    @Test
    void repeatedFieldsCountAsOneList() {
        assertThat(AcceptEncoding.prefersGzip(Headers.of("Accept-Encoding", "br", "accept-encoding", "gzip"))).isTrue();
        assertThat(AcceptEncoding.prefersGzip(Headers.of("Accept-Encoding", "gzip", "Accept-Encoding", "gzip;q=0"))).isTrue();
    }

    @Test
    void weightsAreThousandths() {
        assertThat(AcceptEncoding.weight("q=0.5")).isEqualTo(500);
        assertThat(AcceptEncoding.weight("q=1.000")).isEqualTo(1000);
        assertThat(AcceptEncoding.weight(" q=0.05 ")).isEqualTo(50);
        assertThat(AcceptEncoding.weight("")).isEqualTo(1000);
        assertThat(AcceptEncoding.weight("q=1.001")).isEqualTo(-1);
        assertThat(AcceptEncoding.weight("q=2")).isEqualTo(-1);
    }
}
