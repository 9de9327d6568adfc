package keel.http.server;

import keel.http.Headers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class AcceptEncodingTest {

    @ParameterizedTest(name = "[{0}] -> {1}")
    @CsvSource(delimiter = '|', value = {
            "gzip                          | true",
            "GZIP                          | true",
            "x-gzip                        | true",
            "gzip, deflate, br             | true",
            "br;q=1.0, gzip;q=0.8, *;q=0.1 | true",
            "*                             | true",
            "gzip;q=0.5                    | true",
            "gzip;q=0                      | false",
            "gzip;q=0.000                  | false",
            "gzip; Q=0                     | false",
            "*;q=0                         | false",
            "gzip;q=0, *                   | false",
            "*;q=0, gzip                   | true",
            "br, deflate                   | false",
            "identity                      | false",
            "''                            | false",
            "gzip;q=0.5, identity          | false",
            "gzip;q=0.5, identity;q=0.5    | true",
            "gzip;q=0.4, *;q=0.5           | false",
            "gzip;q=1.5                    | false",
            "gzip;q=abc                    | false",
            "gzip;q=0.1234                 | false",
            "gzip;level=9                  | true",
    })
    void readsTheWeights(String acceptEncoding, boolean gzip) {
        assertThat(AcceptEncoding.prefersGzip(Headers.of("Accept-Encoding", acceptEncoding))).isEqualTo(gzip);
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
