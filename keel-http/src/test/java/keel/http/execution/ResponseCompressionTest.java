package keel.http.execution;

import keel.http.Headers;
import keel.http.Request;
import keel.http.Response;
import keel.http.codec.ZipBomb;
import keel.http.server.ServerOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.concurrent.SubmissionPublisher;

import static org.assertj.core.api.Assertions.assertThat;

/** The decision, on values: which responses go gzip-encoded, which only carry Vary, which stay as they are. */
class ResponseCompressionTest {
    private static final byte[] TEXT = ZipBomb.text(4096);
    private static final ResponseCompression DEFAULTS = of(ServerOptions.defaults().compression());

    /** What the server builds from {@code options}. */
    private static ResponseCompression of(ServerOptions.Compression options) {
        return new ResponseCompression(options.enabled(), options.minSize(), options.level(), options.types());
    }

    private static Request get(String... headers) {
        return new Request("GET", "/", true, true, Headers.of(headers), new byte[0]);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "text/plain, true", "text/html; charset=utf-8, true", "TEXT/CSS, true", "application/json, true",
            "application/problem+json, true", "application/vnd.api+json; charset=utf-8, true", "application/javascript, true",
            "application/xml, true", "application/atom+xml, true", "image/svg+xml, true",
            "application/octet-stream, false", "image/png, false", "application/jsonx, false", "application/+json, false",
            "application, false", "'', false", "textual/plain, false", "application/json-seq, false"})
    void matchesTheDefaultTypes(String contentType, boolean compressible) {
        assertThat(DEFAULTS.isCompressible(contentType)).isEqualTo(compressible);
    }

    @Test
    void aQualifyingBodyIsGzippedWithVary() {
        Response response = DEFAULTS.apply(get("Accept-Encoding", "gzip"), Response.bytes(200, "text/plain", TEXT).closeConnection());

        assertThat(response.headers().get("Content-Encoding")).isEqualTo("gzip");
        assertThat(response.headers().get("Vary")).isEqualTo("Accept-Encoding");
        assertThat(response.closesConnection()).as("the handler's close is kept").isTrue();
        assertThat(ZipBomb.gunzip(response.body())).isEqualTo(TEXT);
    }

    @Test
    void aStrongEntityTagGoesWeakOnTheGzipRepresentationOnly() {
        Response tagged = Response.bytes(200, "text/plain", TEXT).header("ETag", "\"v1\"");

        assertThat(DEFAULTS.apply(get("Accept-Encoding", "gzip"), tagged).headers().all("ETag")).containsExactly("W/\"v1\"");
        assertThat(DEFAULTS.apply(get(), tagged).headers().all("ETag")).containsExactly("\"v1\"");
        Response weak = Response.bytes(200, "text/plain", TEXT).header("ETag", "W/\"v1\"");
        assertThat(DEFAULTS.apply(get("Accept-Encoding", "gzip"), weak).headers().all("ETag")).containsExactly("W/\"v1\"");
    }

    @Test
    void aClientThatDoesNotAskGetsTheBodyAsItIsWithVary() {
        Response original = Response.bytes(200, "text/plain", TEXT);
        Response response = DEFAULTS.apply(get(), original);

        assertThat(response.body()).isSameAs(TEXT);
        assertThat(response.headers().get("Vary")).isEqualTo("Accept-Encoding");
        assertThat(response.headers().contains("Content-Encoding")).isFalse();
    }

    @Test
    void anExistingVaryIsKeptAndExtendedOnlyWhenItDoesNotNameAcceptEncoding() {
        Response namesIt = Response.bytes(200, "text/plain", TEXT).header("Vary", "Origin, accept-encoding");
        Response other = Response.bytes(200, "text/plain", TEXT).header("Vary", "Origin");

        assertThat(DEFAULTS.apply(get(), namesIt).headers().all("Vary")).containsExactly("Origin, accept-encoding");
        assertThat(DEFAULTS.apply(get(), other).headers().all("Vary")).containsExactly("Origin", "Accept-Encoding");
    }

    @Test
    void responsesThatDoNotQualifyAreLeftAlone() {
        Request asks = get("Accept-Encoding", "gzip");
        Response small = Response.bytes(200, "text/plain", new byte[1023]);
        Response binary = Response.bytes(200, "image/png", TEXT);
        Response encoded = Response.bytes(200, "text/plain", TEXT).header("Content-Encoding", "br");
        Response partial = Response.bytes(206, "text/plain", TEXT);
        Response noContent = Response.status(204);
        Response untyped = Response.of(200, Headers.empty(), TEXT);

        for (Response response : List.of(small, binary, encoded, partial, noContent, untyped)) {
            assertThat(DEFAULTS.apply(asks, response)).as(response.toString()).isSameAs(response);
        }
    }

    @Test
    void aBodyThatDoesNotShrinkGoesAsItIsWithVary() {
        byte[] random = new byte[4096];
        new java.util.Random(7).nextBytes(random);
        Response response = DEFAULTS.apply(get("Accept-Encoding", "gzip"), Response.bytes(200, "text/plain", random));

        assertThat(response.body()).isSameAs(random);
        assertThat(response.headers().contains("Content-Encoding")).isFalse();
        assertThat(response.headers().get("Vary")).isEqualTo("Accept-Encoding");
    }

    @Test
    void aStreamedBodyIsWrappedWhateverItsSize() {
        SubmissionPublisher<byte[]> items = new SubmissionPublisher<>();
        Response response = DEFAULTS.apply(get("Accept-Encoding", "gzip"), Response.stream(200, "application/json", items));

        assertThat(response.stream()).isInstanceOf(GzipStream.class);
        assertThat(response.headers().get("Content-Encoding")).isEqualTo("gzip");
        items.close();
    }

    @Test
    void turnedOffItChangesNothing() {
        var off = of(ServerOptions.builder().compressionEnabled(false).build().compression());
        Response response = Response.bytes(200, "text/plain", TEXT);

        assertThat(off.answer(get("Accept-Encoding", "gzip"), response)).isSameAs(response);
    }
}
