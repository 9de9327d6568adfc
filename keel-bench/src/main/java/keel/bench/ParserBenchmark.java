package keel.bench;

import keel.http.codec.Http1Parser;
import keel.http.codec.ParseResult;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/**
 * The request parser alone: a batch of {@value #BATCH} pipelined requests in one buffer, parsed one
 * after the other as a connection's loop parses them, in ns per request. {@code head=wrk} is what
 * {@code bench/throughput.sh} sends (a request line and {@code Host}); {@code head=browser} a GET
 * with the dozen fields a browser sends.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ParserBenchmark {
    static final int BATCH = 16;

    private static final String WRK = "GET /benchmark/hello HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n";
    private static final String BROWSER = """
            GET /orders/42?expand=lines&currency=EUR HTTP/1.1\r
            Host: shop.example.com\r
            User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r
            Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r
            Accept-Language: en-GB,en;q=0.5\r
            Accept-Encoding: gzip, deflate, br, zstd\r
            Referer: https://shop.example.com/orders\r
            Connection: keep-alive\r
            Cookie: session=4f9c2a7e1b; theme=dark; consent=yes\r
            Upgrade-Insecure-Requests: 1\r
            Sec-Fetch-Dest: document\r
            Sec-Fetch-Mode: navigate\r
            Sec-Fetch-Site: same-origin\r
            Priority: u=0, i\r
            \r
            """;

    /**
     * {@code wrk} and {@code browser}: the same head 16 times, as a client polling one resource sends it.
     * {@code changing}: a REST client's heads, each with its own target and {@code X-Request-Id}, the
     * rest the same. {@code alternating}: two browser heads that differ in every line, one after the
     * other, so that no line is ever the one before it at its place (the worst case for a connection's
     * {@code LastHead}).
     */
    @Param({"wrk", "browser", "changing", "alternating"})
    public String head;

    private ByteBuffer batch;
    private Http1Parser parser;

    @Setup
    public void setUp() {
        StringBuilder heads = new StringBuilder();
        for (int i = 0; i < BATCH; i++) heads.append(head(i));
        byte[] bytes = heads.toString().getBytes(ISO_8859_1);
        batch = ByteBuffer.allocate(bytes.length).put(bytes).flip();
        parser = new Http1Parser(new Http1Parser.Limits(8192, 100, 10 * 1024 * 1024));
    }

    private String head(int i) {
        return switch (head) {
            case "wrk" -> WRK;
            case "browser" -> BROWSER;
            case "changing" -> "GET /orders/" + (4200 + i) + " HTTP/1.1\r\nHost: api.example.com\r\nAccept: application/json\r\n"
                    + "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.c2Vzc2lvbg.k3Y\r\nX-Request-Id: 6f1c2a9e-" + (1000 + i) + "\r\n\r\n";
            case "alternating" -> i % 2 == 0 ? BROWSER : BROWSER.replace("GET /orders/42?", "POST /carts/7?")
                    .replace(": ", ":  ").replace("Host:  shop", "Host:  www");
            default -> throw new IllegalArgumentException(head);
        };
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void parseBatch(Blackhole sink) {
        ByteBuffer in = batch;
        in.position(0);
        for (int i = 0; i < BATCH; i++) {
            ParseResult result = parser.parse(in);
            if (!(result instanceof ParseResult.Parsed)) throw new IllegalStateException("not parsed: " + result);
            sink.consume(result);
        }
    }
}
