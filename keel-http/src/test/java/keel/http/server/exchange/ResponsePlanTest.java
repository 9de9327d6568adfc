package keel.http.server.exchange;

import keel.core.buffer.BufferPool;
import keel.core.buffer.WriteQueue;
import keel.http.Headers;
import keel.http.Request;
import keel.http.Response;
import keel.http.codec.Http1Writer.BodyFraming;
import keel.http.execution.Responses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

class ResponsePlanTest {
    private static final byte[] BODY = "hello".getBytes(StandardCharsets.US_ASCII);

    private static Request get(boolean http11, boolean keepAlive) {
        return new Request("GET", "/", http11, keepAlive, Headers.empty(), new byte[0]);
    }

    private static Request head() {
        return new Request("HEAD", "/", true, true, Headers.empty(), new byte[0]);
    }

    private static Response streamed(int status, AtomicBoolean cancelled) {
        Flow.Publisher<byte[]> publisher = subscriber -> subscriber.onSubscribe(new Flow.Subscription() {
            @Override
            public void request(long n) {
            }

            @Override
            public void cancel() {
                cancelled.set(true);
            }
        });
        return Response.of(status, Headers.of("Content-Type", "text/plain"), publisher);
    }

    /** What {@link ResponsePlan#write} queues, as text. */
    private static String written(ResponsePlan plan, Response response) throws IOException {
        return written(plan, response, null);
    }

    /** What {@link ResponsePlan#write} queues with {@code requestId}, as text. */
    private static String written(ResponsePlan plan, Response response, CharSequence requestId) throws IOException {
        WriteQueue out = new WriteQueue(new BufferPool(4096, 2));
        plan.write(out, response, requestId, System.nanoTime());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        out.writeTo(bytes);
        return bytes.toString(StandardCharsets.ISO_8859_1);
    }

    @Test
    void keepsAnHttp11ConnectionOpenAfterAFixedResponse() throws IOException {
        Response response = Response.bytes(200, "text/plain", BODY);
        ResponsePlan plan = ResponsePlan.of(get(true, true), response, false);

        assertThat(plan).isEqualTo(new ResponsePlan(ResponsePlan.Kind.FIXED, BodyFraming.FIXED, false, false, false));
        assertThat(written(plan, response)).contains("Content-Length: 5\r\n").doesNotContain("Connection:").endsWith("\r\n\r\nhello");
    }

    @Test
    void headRequestGetsTheHeadOfAFixedResponseWithoutItsBody() throws IOException {
        Response response = Response.bytes(200, "text/plain", BODY);
        ResponsePlan plan = ResponsePlan.of(head(), response, false);

        assertThat(plan.kind()).isEqualTo(ResponsePlan.Kind.FIXED);
        assertThat(plan.omitBody()).isTrue();
        assertThat(plan.close()).isFalse();
        assertThat(written(plan, response)).contains("Content-Length: 5\r\n").endsWith("\r\n\r\n");
    }

    @Test
    void headRequestGetsOnlyTheHeadOfAStreamedResponseAndThePublisherIsCancelled() throws IOException {
        AtomicBoolean cancelled = new AtomicBoolean();
        Response response = streamed(200, cancelled);
        ResponsePlan plan = ResponsePlan.of(head(), response, false);

        assertThat(plan).isEqualTo(new ResponsePlan(ResponsePlan.Kind.HEAD_ONLY, BodyFraming.CHUNKED, true, false, false));
        assertThat(plan.streamsBody()).isFalse();
        assertThat(written(plan, response)).contains("Transfer-Encoding: chunked\r\n").endsWith("\r\n\r\n");
        assertThat(cancelled).isTrue();
    }

    @Test
    void http10ClientThatAskedForKeepAliveHasItAnnounced() throws IOException {
        Response response = Response.bytes(200, "text/plain", BODY);
        ResponsePlan plan = ResponsePlan.of(get(false, true), response, false);

        assertThat(plan.close()).isFalse();
        assertThat(plan.http10Client()).isTrue();
        assertThat(written(plan, response)).contains("Connection: keep-alive\r\n");
    }

    @Test
    void http10ClientWithoutKeepAliveIsClosedAfterTheResponse() throws IOException {
        Response response = Response.bytes(200, "text/plain", BODY);
        ResponsePlan plan = ResponsePlan.of(get(false, false), response, false);

        assertThat(plan.close()).isTrue();
        assertThat(written(plan, response)).contains("Connection: close\r\n").doesNotContain("keep-alive");
    }

    @ParameterizedTest
    @ValueSource(ints = {204, 304})
    void fixedResponseWithANoBodyStatusHasNoFraming(int status) throws IOException {
        Response response = Response.status(status);
        ResponsePlan plan = ResponsePlan.of(get(true, true), response, false);

        assertThat(plan).isEqualTo(new ResponsePlan(ResponsePlan.Kind.FIXED, BodyFraming.NONE, false, false, false));
        assertThat(written(plan, response)).doesNotContain("Content-Length").doesNotContain("Transfer-Encoding");
    }

    @ParameterizedTest
    @ValueSource(ints = {204, 304})
    void streamedResponseWithANoBodyStatusGetsOnlyAHeadWithoutFraming(int status) throws IOException {
        AtomicBoolean cancelled = new AtomicBoolean();
        Response response = streamed(status, cancelled);
        ResponsePlan plan = ResponsePlan.of(get(true, true), response, false);

        assertThat(plan).isEqualTo(new ResponsePlan(ResponsePlan.Kind.HEAD_ONLY, BodyFraming.NONE, false, false, false));
        assertThat(written(plan, response)).doesNotContain("Content-Length").doesNotContain("Transfer-Encoding");
        assertThat(cancelled).isTrue();
    }

    @Test
    void stoppingServerClosesAfterTheResponse() throws IOException {
        Response response = Response.bytes(200, "text/plain", BODY);
        ResponsePlan plan = ResponsePlan.of(get(true, true), response, true);

        assertThat(plan.close()).isTrue();
        assertThat(written(plan, response)).contains("Connection: close\r\n");
    }

    @Test
    void handlerThatAsksForCloseClosesAfterTheResponse() {
        ResponsePlan plan = ResponsePlan.of(get(true, true), Response.ok("bye").closeConnection(), false);

        assertThat(plan.close()).isTrue();
    }

    @Test
    void streamedResponseToHttp11IsChunkedAndKeepsTheConnection() throws IOException {
        Response response = streamed(200, new AtomicBoolean());
        ResponsePlan plan = ResponsePlan.of(get(true, true), response, false);

        assertThat(plan).isEqualTo(new ResponsePlan(ResponsePlan.Kind.STREAMED, BodyFraming.CHUNKED, false, false, false));
        assertThat(written(plan, response)).contains("Transfer-Encoding: chunked\r\n").doesNotContain("Connection:");
        WriteQueue out = new WriteQueue(new BufferPool(4096, 2));
        plan.writeItem(out, BODY);
        plan.writeEnd(out);
        assertThat(out.pendingBytes()).isEqualTo("5\r\nhello\r\n0\r\n\r\n".length());
    }

    @Test
    void streamedResponseToHttp10RunsUntilCloseAndCloses() throws IOException {
        Response response = streamed(200, new AtomicBoolean());
        ResponsePlan plan = ResponsePlan.of(get(false, true), response, false);

        assertThat(plan).isEqualTo(new ResponsePlan(ResponsePlan.Kind.STREAMED, BodyFraming.UNTIL_CLOSE, false, true, true));
        assertThat(written(plan, response)).contains("Connection: close\r\n")
                .doesNotContain("Transfer-Encoding").doesNotContain("Content-Length");
        WriteQueue out = new WriteQueue(new BufferPool(4096, 2));
        plan.writeItem(out, BODY);
        plan.writeEnd(out);
        assertThat(out.pendingBytes()).isEqualTo(BODY.length);
    }

    @Test
    void aRequestIdGoesBackAsXRequestIdUnlessTheResponseHasOne() throws IOException {
        Response response = Response.bytes(200, "text/plain", BODY);
        assertThat(written(ResponsePlan.of(get(true, true), response, false), response, "5f2a9c01be34-1a"))
                .contains("\r\nX-Request-Id: 5f2a9c01be34-1a\r\n").endsWith("\r\n\r\nhello");
        Response own = response.header("X-Request-Id", "upstream-7");
        assertThat(written(ResponsePlan.of(get(true, true), own, false), own, "5f2a9c01be34-1a"))
                .contains("\r\nX-Request-Id: upstream-7\r\n").doesNotContain("5f2a9c01be34-1a");
        Response streamed = streamed(200, new AtomicBoolean());
        assertThat(written(ResponsePlan.of(get(true, true), streamed, false), streamed, "id-2")).contains("\r\nX-Request-Id: id-2\r\n");
        Response refused = Responses.error(400, "bad");
        assertThat(written(ResponsePlan.closing(refused), refused, "id-3")).contains("\r\nX-Request-Id: id-3\r\n");
    }

    @Test
    void planningAResponseMakesNoPlanOfItsOwn() {
        Response response = Response.bytes(200, "text/plain", BODY);
        ResponsePlan first = ResponsePlan.of(get(true, true), response, false);

        assertThat(ResponsePlan.of(get(true, true), response, false)).isSameAs(first);
        assertThat(ResponsePlan.of(get(true, true), response, true)).isNotEqualTo(first)
                .isSameAs(ResponsePlan.of(get(true, true), response, true));
        assertThat(ResponsePlan.closing(response)).isSameAs(ResponsePlan.closing(response));
    }

    @Test
    void closingPlanAnswersWithCloseWhateverWasAsked() throws IOException {
        Response response = Responses.error(408, "request head not received within 300 ms");
        ResponsePlan plan = ResponsePlan.closing(response);

        assertThat(plan).isEqualTo(new ResponsePlan(ResponsePlan.Kind.FIXED, BodyFraming.FIXED, false, true, false));
        assertThat(written(plan, response)).startsWith("HTTP/1.1 408 Request Timeout\r\n").contains("Connection: close\r\n")
                .endsWith("request head not received within 300 ms\n");
    }
}
