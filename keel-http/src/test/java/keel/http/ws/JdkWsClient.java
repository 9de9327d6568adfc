package keel.http.ws;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The JDK's {@link WebSocket} client, collecting what arrives: whole messages as strings (binary as
 * "binary:" + ISO-8859-1 text of its bytes), pongs as "pong:..." and the close as "close:CODE:reason".
 */
final class JdkWsClient implements WebSocket.Listener {
    final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
    final CompletableFuture<String> closed = new CompletableFuture<>();
    private final StringBuilder text = new StringBuilder();
    private final ByteArrayOutputStream binary = new ByteArrayOutputStream();
    WebSocket socket;

    static JdkWsClient connect(URI uri) {
        return connect(uri, HttpClient.newHttpClient());
    }

    /** Through {@code http} (its SSLContext for {@code wss://}, say). */
    static JdkWsClient connect(URI uri, HttpClient http) {
        JdkWsClient client = new JdkWsClient();
        client.socket = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5)).buildAsync(uri, client).join();
        return client;
    }

    /** The next message (String or byte[]), waiting up to 10 s. */
    Object next() throws InterruptedException {
        Object message = received.poll(10, TimeUnit.SECONDS);
        if (message == null) throw new AssertionError("no message within 10 s");
        return message;
    }

    String nextText() throws InterruptedException {
        return (String) next();
    }

    String awaitClose() throws Exception {
        return closed.get(10, TimeUnit.SECONDS);
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        text.append(data);
        if (last) {
            received.add(text.toString());
            text.setLength(0);
        }
        webSocket.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
        byte[] bytes = new byte[data.remaining()];
        data.get(bytes);
        binary.writeBytes(bytes);
        if (last) {
            received.add(binary.toByteArray());
            binary.reset();
        }
        webSocket.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onPong(WebSocket webSocket, ByteBuffer message) {
        received.add("pong:" + StandardCharsets.UTF_8.decode(message));
        webSocket.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
        closed.complete("close:" + statusCode + ":" + reason);
        return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
        closed.completeExceptionally(error);
    }
}
