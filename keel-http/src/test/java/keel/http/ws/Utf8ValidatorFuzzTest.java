package keel.http.ws;

import com.code_intelligence.jazzer.junit.FuzzTest;
import keel.http.FuzzInput;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzes the incremental UTF-8 validator: bytes fed whole or in pieces split anywhere (inside a code
 * point too) are judged the same, and the same as the JDK's strict decoder judges them.
 */
public class Utf8ValidatorFuzzTest {
    @FuzzTest
    public void judgesLikeTheJdkHoweverTheBytesArrive(byte[] data) {
        FuzzInput input = FuzzInput.of(data);
        boolean valid = isUtf8(input.bytes());
        assertThat(Utf8Validator.isValid(input.bytes(), 0, input.bytes().length)).as("whole").isEqualTo(valid);
        assertThat(input.<Boolean>sameForEveryDelivery(Utf8ValidatorFuzzTest::feed)).as("fed in pieces").isEqualTo(valid);
    }

    private static boolean feed(List<byte[]> pieces) {
        Utf8Validator validator = new Utf8Validator();
        for (byte[] piece : pieces) {
            if (!validator.feed(piece, 0, piece.length)) return false;
        }
        return validator.isComplete();
    }

    private static boolean isUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}
