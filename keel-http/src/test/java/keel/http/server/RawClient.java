package keel.http.server;

import keel.http.tls.TestCertificates;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLProtocolException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
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
 *
 * <p>Over TLS ({@link #tls}) the bytes travel in an {@link SSLSocket} that checks the server's
 * certificate for {@code localhost}. A clean close is then {@code close_notify} (RFC 8446 §6.1;
 * the FIN may follow): an end without it is a truncation and throws {@link SSLProtocolException}, as the
 * JDK does under {@code com.sun.net.ssl.requireCloseNotify}; a reset still throws {@link SocketException}.
 * A half-close sends {@code close_notify} and a FIN: TLS 1.3 lets the server answer after it.
 */
final class RawClient implements AutoCloseable {
    /** One parsed response; header names are lower-cased. */
    record RawResponse(int status, String statusLine, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /** The test CA's client factory, made once: one context lets TLS sessions resume between connections. */
    private static final class Tls {
        static final SSLSocketFactory FACTORY = TestCertificates.clientContextTrustingCa().getSocketFactory();
    }

    private final Socket socket;
    /** Under TLS, the TCP socket below {@link #socket}; null in clear text. */
    private final TcpUnderTls tcp;
    private final InputStream in;
    private final OutputStream out;

    private RawClient(Socket socket, TcpUnderTls tcp) throws IOException {
        this.socket = socket;
        this.tcp = tcp;
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
            return new RawClient(new Socket("127.0.0.1", port), null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Over TLS: {@link #tls(int, SSLContext)} with a client context that trusts the test CA. */
    static RawClient tls(int port) {
        return tls(port, Tls.FACTORY);
    }

    /**
     * Over TLS: a client socket of {@code context} that has shaken hands with the server at
     * {@code port}, checking its certificate for {@code localhost}.
     */
    static RawClient tls(int port, SSLContext context) {
        return tls(port, context.getSocketFactory());
    }

    private static RawClient tls(int port, SSLSocketFactory factory) {
        try {
            TcpUnderTls tcp = new TcpUnderTls(port);
            SSLSocket socket = (SSLSocket) factory.createSocket(tcp, "localhost", port, true);
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            socket.setSSLParameters(parameters);
            socket.setSoTimeout(10_000);
            socket.startHandshake();
            return new RawClient(socket, tcp);
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

    /**
     * Sends {@code text} and half-closes (a FIN; over TLS, close_notify first), so the server reads the
     * end with the bytes: over TLS the records and close_notify leave in one TCP write. Reading goes on.
     */
    void sendAndShutdownOutput(String text) throws IOException {
        if (tcp != null) tcp.holdOutput();
        send(text);
        socket.shutdownOutput();
    }

    /** The client's end of the TCP connection: what the server sees as its peer. */
    InetSocketAddress localAddress() {
        return (InetSocketAddress) (tcp != null ? tcp : socket).getLocalSocketAddress();
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

    /**
     * True when the server closed the connection cleanly (EOF; over TLS, close_notify); false if still
     * open; throws on a reset, and over TLS on an end without close_notify.
     */
    boolean closedByServer() throws IOException {
        try {
            if (in.read() >= 0) return false;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        }
        checkCleanEnd();
        return true;
    }

    /**
     * Everything until the server closes; fails on a reset (the bytes before an RST may be lost) and,
     * over TLS, on an end without close_notify (the bytes may be cut short).
     */
    String readToEnd() throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        in.transferTo(all);
        checkCleanEnd();
        return all.toString(StandardCharsets.ISO_8859_1);
    }

    /** Called at EOF: the SSLSocket reports a bare FIN as EOF too, but only a FIN leaves the TCP stream at its end. */
    private void checkCleanEnd() throws SSLProtocolException {
        if (tcp != null && tcp.finRead) {
            throw new SSLProtocolException("the server closed the TCP connection without close_notify: a truncation, not a clean end");
        }
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

    /**
     * The TCP socket under a client's TLS. It notes when a read reaches the peer's FIN: the SSLSocket
     * reads whole records and stops after {@code close_notify}, so it reaches the FIN itself only when
     * the server closed without one. And it can hold back what TLS writes ({@link #holdOutput}) until
     * its {@link #shutdownOutput()}, which sends it all in one write followed by the FIN.
     */
    private static final class TcpUnderTls extends Socket {
        private final ByteArrayOutputStream held = new ByteArrayOutputStream();
        private volatile boolean finRead;
        private boolean holding;

        TcpUnderTls(int port) throws IOException {
            super("127.0.0.1", port);
        }

        void holdOutput() {
            holding = true;
        }

        @Override
        public InputStream getInputStream() throws IOException {
            return new FilterInputStream(super.getInputStream()) {
                @Override
                public int read() throws IOException {
                    return noteEnd(super.read());
                }

                @Override
                public int read(byte[] bytes, int offset, int length) throws IOException {
                    return noteEnd(super.read(bytes, offset, length));
                }
            };
        }

        @Override
        public OutputStream getOutputStream() throws IOException {
            OutputStream tcp = super.getOutputStream();
            return new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    write(new byte[]{(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] bytes, int offset, int length) throws IOException {
                    if (holding) held.write(bytes, offset, length);
                    else tcp.write(bytes, offset, length);
                }
            };
        }

        @Override
        public void shutdownOutput() throws IOException {
            if (holding) {
                holding = false;
                super.getOutputStream().write(held.toByteArray());
            }
            super.shutdownOutput();
        }

        private int noteEnd(int result) {
            if (result < 0) finRead = true;
            return result;
        }
    }
}
