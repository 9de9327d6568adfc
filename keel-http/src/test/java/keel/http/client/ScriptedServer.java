package keel.http.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback server that answers each request as a test script says, down to misbehaviour a real
 * server shows only by accident: closing or resetting a connection just as a request arrives,
 * answering without a length, answering with no keep-alive. Every connection gets a number, and the
 * script sees it with the request's number on that connection.
 */
final class ScriptedServer implements AutoCloseable {
    /** What to do with request {@code requestOnConnection} (0-based) of connection {@code connection} (0-based). */
    interface Script {
        Action answer(int connection, int requestOnConnection, String requestHead);
    }

    sealed interface Action {
    }

    /** Writes these bytes and keeps reading requests (unless the bytes promised a close). */
    record Respond(String raw) implements Action {
    }

    /** Closes the connection without answering (the client sees end of input: a premature close). */
    record Close() implements Action {
    }

    /** Resets the connection (SO_LINGER 0): the client sees "Connection reset". */
    record Reset() implements Action {
    }

    /** Writes these bytes (a part of an answer) and closes the connection. */
    record Truncate(String raw) implements Action {
    }

    /** Answers nothing and keeps the connection open (until the client closes it). */
    record Hang() implements Action {
    }

    static Respond ok(String body) {
        return new Respond("HTTP/1.1 200 OK\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
    }

    private final ServerSocket listener;
    private final Script script;
    private final AtomicInteger connections = new AtomicInteger();
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    final List<String> heads = new CopyOnWriteArrayList<>();

    private final int idleTimeoutMillis;

    ScriptedServer(Script script) throws IOException {
        this(script, 0);
    }

    /** @param idleTimeoutMillis close a connection idle this long between requests (0: never), as servers do */
    ScriptedServer(Script script, int idleTimeoutMillis) throws IOException {
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.script = script;
        this.idleTimeoutMillis = idleTimeoutMillis;
        Thread.ofPlatform().daemon().name("scripted-accept").start(this::acceptLoop);
    }

    String uri(String path) {
        return "http://127.0.0.1:" + listener.getLocalPort() + path;
    }

    int connections() {
        return connections.get();
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket socket = listener.accept();
                open.add(socket);
                int number = connections.getAndIncrement();
                Thread.ofPlatform().daemon().name("scripted-" + number).start(() -> serve(socket, number));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket socket, int connection) {
        try (socket) {
            socket.setSoTimeout(idleTimeoutMillis);
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            for (int request = 0; ; request++) {
                String head = readHead(in);
                if (head == null) return;
                heads.add(head);
                skipBody(in, head);
                switch (script.answer(connection, request, head)) {
                    case Respond respond -> {
                        out.write(respond.raw().getBytes(StandardCharsets.ISO_8859_1));
                        out.flush();
                        if (respond.raw().contains("Connection: close")) return;
                    }
                    case Close close -> {
                        return;
                    }
                    case Reset reset -> {
                        socket.setSoLinger(true, 0);
                        return;
                    }
                    case Truncate truncate -> {
                        out.write(truncate.raw().getBytes(StandardCharsets.ISO_8859_1));
                        out.flush();
                        return;
                    }
                    case Hang hang -> {
                        socket.setSoTimeout(0);
                        while (in.read() >= 0) {
                            // wait for the client to give up
                        }
                        return;
                    }
                }
            }
        } catch (IOException e) {
            // the client went away, or the connection was idle past the timeout: close it
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            matched = (b == '\r' || b == '\n') && "\r\n\r\n".charAt(matched) == b ? matched + 1 : (b == '\r' ? 1 : 0);
            if (matched == 4) return head.toString(StandardCharsets.ISO_8859_1);
        }
        return null;
    }

    private static void skipBody(InputStream in, String head) throws IOException {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                in.readNBytes(Integer.parseInt(line.substring(15).trim()));
            }
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket socket : open) socket.close();
    }
}
