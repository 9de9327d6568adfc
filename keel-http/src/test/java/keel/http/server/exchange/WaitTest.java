package keel.http.server.exchange;

import keel.http.Response;
import keel.http.codec.Http1Parser;
import keel.http.codec.ParseResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WaitTest {
    private static final ServerContext.Timeouts TIMEOUTS = new ServerContext.Timeouts(
            Duration.ofMillis(300), Duration.ofSeconds(60), Duration.ofSeconds(20), Duration.ofSeconds(45), 240, Duration.ofSeconds(10),
            Duration.ofSeconds(2));

    /** The wait of a connection that has read {@code input}: the buffer keeps what the parser did not consume. */
    private static Wait waitAfter(String input) {
        Http1Parser parser = new Http1Parser(new Http1Parser.Limits(8192, 100, 1 << 20));
        ByteBuffer in = ByteBuffer.allocate(1024).put(input.getBytes(StandardCharsets.ISO_8859_1)).flip();
        assertThat(parser.parse(in)).isInstanceOf(ParseResult.NeedMore.class);
        in.compact();
        return Wait.forReading(parser, in.position() > 0);
    }

    @Test
    void waitsIdleBetweenRequests() {
        assertThat(waitAfter("")).isEqualTo(Wait.IDLE);
    }

    @Test
    void emptyLinesBeforeARequestLeaveTheConnectionIdle() {
        assertThat(waitAfter("\r\n\r\n")).isEqualTo(Wait.IDLE);
    }

    @Test
    void waitsForTheHeadOnceItsFirstByteArrived() {
        assertThat(waitAfter("GET / HTTP/1.1\r\nHo")).isEqualTo(Wait.HEAD);
    }

    @Test
    void waitsForTheBodyAfterTheHead() {
        assertThat(waitAfter("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhe")).isEqualTo(Wait.BODY);
    }

    @Test
    void eachWaitHasItsTimeout() {
        assertThat(Wait.IDLE.timeoutNanos(TIMEOUTS)).isEqualTo(Duration.ofSeconds(60).toNanos());
        assertThat(Wait.HEAD.timeoutNanos(TIMEOUTS)).isEqualTo(Duration.ofMillis(300).toNanos());
        assertThat(Wait.BODY.timeoutNanos(TIMEOUTS)).isEqualTo(Duration.ofSeconds(60).toNanos());
        assertThat(Wait.WRITE.timeoutNanos(TIMEOUTS)).as("the write-stall timeout").isEqualTo(Duration.ofSeconds(20).toNanos());
        assertThat(Wait.STREAM.timeoutNanos(TIMEOUTS)).as("the stream-stall timeout").isEqualTo(Duration.ofSeconds(45).toNanos());
        assertThat(Wait.LINGER.timeoutNanos(TIMEOUTS)).isEqualTo(Duration.ofSeconds(2).toNanos());
        assertThatThrownBy(() -> Wait.NONE.timeoutNanos(TIMEOUTS)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anExpiredHeadIsAnswered408WithTheHeadReadTimeout() {
        Response response = Wait.HEAD.onExpiry(TIMEOUTS);

        assertThat(response.status()).isEqualTo(408);
        assertThat(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo("request head not received within 300 ms\n");
    }

    @Test
    void anExpiredBodyIsAnswered408WithTheIdleTimeout() {
        Response response = Wait.BODY.onExpiry(TIMEOUTS);

        assertThat(response.status()).isEqualTo(408);
        assertThat(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo("request body stalled for 60000 ms\n");
    }

    @ParameterizedTest
    @EnumSource(value = Wait.class, names = {"NONE", "IDLE", "STREAM", "WRITE", "LINGER"})
    void otherWaitsEndWithoutAResponse(Wait wait) {
        assertThatThrownBy(() -> wait.onExpiry(TIMEOUTS)).isInstanceOf(IllegalStateException.class);
    }
}
