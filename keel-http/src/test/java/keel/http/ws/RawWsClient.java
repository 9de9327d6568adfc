package keel.http.ws;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A raw-socket WebSocket client for tests: does the handshake by hand, sends exact bytes (see
 * {@link Frames}), reads server frames one at a time, and tells a clean close (FIN) from a reset.
 */
final class RawWsClient implements AutoCloseable {
    /** One frame from the server; {@code rsv1} marks the first frame of a compressed message. */
    record Frame(boolean fin, boolean rsv1, int opcode, byte[] payload) {
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }

        int closeCode() {
            return payload.length < 2 ? WsClose.NO_STATUS : (payload[0] & 0xFF) << 8 | (payload[1] & 0xFF);
        }
    }

    static final String KEY = "dGhlIHNhbXBsZSBub25jZQ==";

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private String responseHead;

    private RawWsClient(int port) throws IOException {
        this(new Socket("127.0.0.1", port));
    }

    private RawWsClient(Socket socket) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(10_000);
        this.in = new DataInputStream(new java.io.BufferedInputStream(socket.getInputStream()));
        this.out = socket.getOutputStream();
    }

    /** Connects and upgrades on {@code path}; fails unless the answer is a 101. */
    static RawWsClient open(int port, String path) {
        RawWsClient client = connect(port);
        client.send(handshake(path, ""));
        String head = client.readHead();
        if (!head.startsWith("HTTP/1.1 101 ")) throw new AssertionError("expected a 101, got:\n" + head);
        return client;
    }

    /** Reads and writes on a socket the test connected itself. */
    static RawWsClient wrap(Socket socket) {
        try {
            return new RawWsClient(socket);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static RawWsClient connect(int port) {
        try {
            return new RawWsClient(port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A valid upgrade request with {@code extraHeaders} (each ending in CRLF) added. */
    static String handshake(String path, String extraHeaders) {
        return "GET " + path + " HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: " + KEY + "\r\nSec-WebSocket-Version: 13\r\n" + extraHeaders + "\r\n";
    }

    RawWsClient send(String text) {
        return send(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    RawWsClient send(byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** The HTTP response head (status line and fields) up to the empty line. */
    String readHead() {
        StringBuilder head = new StringBuilder();
        try {
            while (!head.toString().endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) throw new IOException("closed inside the response head: " + head);
                head.append((char) b);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        responseHead = head.toString();
        return responseHead;
    }

    /** The body of a response with Content-Length, after {@link #readHead}. */
    String readBody() {
        String length = responseHead.lines().filter(l -> l.toLowerCase().startsWith("content-length:")).findFirst()
                .orElseThrow().substring("content-length:".length()).trim();
        try {
            return new String(in.readNBytes(Integer.parseInt(length)), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Frame readFrame() {
        try {
            int first = in.readUnsignedByte();
            int second = in.readUnsignedByte();
            if ((second & 0x80) != 0) throw new AssertionError("server frame is masked");
            long length = second & 0x7F;
            if (length == 126) length = in.readUnsignedShort();
            else if (length == 127) length = in.readLong();
            byte[] payload = new byte[(int) length];
            in.readFully(payload);
            return new Frame((first & 0x80) != 0, (first & 0x40) != 0, first & 0x0F, payload);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads frames until a Close and returns it (data frames before it are skipped). */
    Frame readUntilClose() {
        while (true) {
            Frame frame = readFrame();
            if (frame.opcode() == FrameDecoder.CLOSE) return frame;
        }
    }

    /** True when the server closed cleanly (EOF) within the timeout; false if still open; throws on a reset. */
    boolean closedByServer(int timeoutMillis) throws IOException {
        socket.setSoTimeout(timeoutMillis);
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        }
    }

    void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    RawWsClient timeout(int millis) {
        try {
            socket.setSoTimeout(millis);
        } catch (SocketException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
