package keel.lab.scenario;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One request on a fresh connection, as {@code curl} sends it: connect, send with
 * {@code Connection: close}, read to the end. No pool and no client state, so the time it takes is the
 * server's (plus one loopback connect), cold or warm.
 */
final class OneShot {
    /** The answer: status (-1 when none arrived), body text and the wall time from connect to end of stream. */
    record Answer(int status, String body, double millis) {
    }

    private static final int MAX_ANSWER = 4 << 20;

    private OneShot() {
    }

    static Answer get(int port, String path, int timeoutMillis) throws IOException {
        return send(port, "GET", path, null, timeoutMillis);
    }

    static Answer post(int port, String path, String json, int timeoutMillis) throws IOException {
        return send(port, "POST", path, json, timeoutMillis);
    }

    private static Answer send(int port, String method, String path, String json, int timeoutMillis) throws IOException {
        long start = System.nanoTime();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            byte[] body = json == null ? new byte[0] : json.getBytes(StandardCharsets.UTF_8);
            String head = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n"
                    + (json == null ? "" : "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n") + "\r\n";
            socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().write(body);
            socket.getOutputStream().flush();
            String answer = readAll(socket.getInputStream());
            return new Answer(status(answer), bodyOf(answer), (System.nanoTime() - start) / 1e6);
        }
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) > 0; ) {
            bytes.write(buffer, 0, n);
            if (bytes.size() > MAX_ANSWER) throw new IOException("answer larger than " + MAX_ANSWER + " bytes");
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    static int status(String answer) {
        if (!answer.startsWith("HTTP/1.")) return -1;
        int space = answer.indexOf(' ');
        try {
            return Integer.parseInt(answer.substring(space + 1, space + 4));
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private static String bodyOf(String answer) {
        int end = answer.indexOf("\r\n\r\n");
        return end < 0 ? "" : answer.substring(end + 4);
    }
}
