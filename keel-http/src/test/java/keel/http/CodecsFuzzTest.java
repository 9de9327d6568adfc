package keel.http;

import com.code_intelligence.jazzer.junit.FuzzTest;
import keel.http.codec.ChunkedDecoderFuzzTest;
import keel.http.codec.GzipDecoderFuzzTest;
import keel.http.codec.Http1ParserFuzzTest;
import keel.http.codec.Http1ResponseParserFuzzTest;
import keel.http.ws.FrameDecoderFuzzTest;
import keel.http.ws.MessageInflaterFuzzTest;
import keel.http.ws.Utf8ValidatorFuzzTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * Every codec target in one fuzz test: the first byte picks the target, the rest is its input.
 * Fuzzing runs one fuzz test per JVM, so this is how {@code mvn verify} fuzzes them all for a few
 * seconds in one JVM (the {@code codec-fuzzing} execution of keel-http's pom); each target's seed
 * corpus, tagged with its byte, seeds it. {@code bench/fuzz.sh} fuzzes the targets one by one.
 */
class CodecsFuzzTest {
    private static final List<Class<?>> TARGETS = List.of(Http1ParserFuzzTest.class, ChunkedDecoderFuzzTest.class,
            Http1ResponseParserFuzzTest.class, GzipDecoderFuzzTest.class, FrameDecoderFuzzTest.class,
            Utf8ValidatorFuzzTest.class, MessageInflaterFuzzTest.class);

    @MethodSource("seeds")
    @FuzzTest
    void anyCodec(byte[] data) throws IOException {
        if (data.length == 0) return;
        byte[] input = Arrays.copyOfRange(data, 1, data.length);
        switch ((data[0] & 0xFF) % TARGETS.size()) {
            case 0 -> new Http1ParserFuzzTest().parsesTheSameHoweverTheBytesArrive(input);
            case 1 -> new ChunkedDecoderFuzzTest().decodesTheSameHoweverTheBytesArrive(input);
            case 2 -> new Http1ResponseParserFuzzTest().parsesTheSameHoweverTheBytesArrive(input);
            case 3 -> new GzipDecoderFuzzTest().decodesTheSameHoweverTheBytesArrive(input);
            case 4 -> new FrameDecoderFuzzTest().decodesTheSameHoweverTheBytesArrive(input);
            case 5 -> new Utf8ValidatorFuzzTest().judgesLikeTheJdkHoweverTheBytesArrive(input);
            default -> new MessageInflaterFuzzTest().inflatesWithinTheBound(input);
        }
    }

    /** Each target's seed corpus (its Inputs directory on the class path), its byte in front. */
    static Stream<byte[]> seeds() throws IOException, URISyntaxException {
        List<byte[]> seeds = new ArrayList<>();
        for (int i = 0; i < TARGETS.size(); i++) {
            Class<?> target = TARGETS.get(i);
            URL inputs = target.getResource(target.getSimpleName() + "Inputs/" + fuzzMethod(target).getName());
            if (inputs == null) continue;
            try (Stream<Path> files = Files.list(Path.of(inputs.toURI()))) {
                for (Path file : files.sorted().toList()) {
                    byte[] bytes = Files.readAllBytes(file);
                    byte[] seed = new byte[bytes.length + 1];
                    seed[0] = (byte) i;
                    System.arraycopy(bytes, 0, seed, 1, bytes.length);
                    seeds.add(seed);
                }
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        }
        return seeds.stream();
    }

    private static Method fuzzMethod(Class<?> target) {
        return Arrays.stream(target.getMethods()).filter(m -> m.isAnnotationPresent(FuzzTest.class)).findFirst().orElseThrow();
    }
}
