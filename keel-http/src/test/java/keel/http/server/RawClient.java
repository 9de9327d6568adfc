package keel.http.server;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A raw-socket HTTP/1.1 client for tests: sends exact bytes, reads responses one at a time
 * (Content-Length or chunked), and tells a clean close (FIN) from a reset (RST).
 */
final class RawClient implements AutoCloseable {
    /** One parsed response; header names are lower-cased. */
    record RawResponse(int status, String statusLine, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RawClient(Socket socket) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(10_000);
        this.in = new java.io.BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** The bytes of a plain HTTP/1.1 GET of {@code target}. */
    static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n";
    }

    static RawClient connect(int port) {
        try {
            return new RawClient(new Socket("127.0.0.1", port));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Over TLS: a client socket of {@code context} that has shaken hands with the server at
     * {@code port}, checking its certificate for {@code localhost}.
     */
    static RawClient tls(int port, SSLContext context) {
        try {
            SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(new Socket("127.0.0.1", port), "localhost", port, true);
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            socket.setSSLParameters(parameters);
            socket.setSoTimeout(10_000);
            socket.startHandshake();
            return new RawClient(socket);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    RawClient send(String text) {
        return send(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    RawClient send(byte[] bytes) {
        try {
            out.write(bytes);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    RawClient timeout(int millis) {
        try {
            socket.setSoTimeout(millis);
        } catch (SocketException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    /** Reads one response (a HEAD request's has no body: pass {@code head}). */
    RawResponse read(boolean head) {
        try {
            String statusLine = readLine();
            if (statusLine == null) throw new IOException("connection closed before a response");
            int status = Integer.parseInt(statusLine.split(" ")[1]);
            Map<String, String> headers = new LinkedHashMap<>();
            for (String line = readLine(); line != null && !line.isEmpty(); line = readLine()) {
                int colon = line.indexOf(':');
                headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
            }
            String body = "";
            if (!head && status >= 200 && status != 204 && status != 304) {
                if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) body = readChunked();
                else if (headers.containsKey("content-length")) body = readFixed(Integer.parseInt(headers.get("content-length")));
                else body = readToEnd();
            }
            return new RawResponse(status, statusLine, headers, body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    RawResponse read() {
        return read(false);
    }

    /** True when the server closed the connection cleanly (EOF); false if still open; throws on a reset. */
    boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        }
    }

    /** Everything until the server closes; fails on a reset (the bytes before an RST may be lost). */
    String readToEnd() throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        in.transferTo(all);
        return all.toString(StandardCharsets.ISO_8859_1);
    }

    private String readChunked() throws IOException {
        StringBuilder body = new StringBuilder();
        while (true) {
            String sizeLine = readLine();
            int size = Integer.parseInt(sizeLine.split(";")[0].trim(), 16);
            if (size == 0) {
                while (!readLine().isEmpty()) {
                    // trailers
                }
                return body.toString();
            }
            body.append(readFixed(size));
            readLine();
        }
    }

    private String readFixed(int length) throws IOException {
        byte[] bytes = in.readNBytes(length);
        if (bytes.length < length) throw new IOException("body cut short: " + bytes.length + " of " + length);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    private String readLine() throws IOException {
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0) {
            if (b == '\n') {
                int end = line.length();
                return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
            }
            line.append((char) b);
        }
        return line.isEmpty() ? null : line.toString();
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
