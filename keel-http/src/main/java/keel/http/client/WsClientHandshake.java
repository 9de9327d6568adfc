package keel.http.client;

import keel.core.buffer.BufferPool;
import keel.core.buffer.WriteQueue;
import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.core.loop.IoHandler;
import keel.core.loop.Timer;
import keel.http.Headers;
import keel.http.Request;
import keel.http.ws.WsConnection;
import keel.http.ws.WsHandshake;
import keel.http.ws.WsListener;
import keel.http.ws.WsSession;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * The client side of the opening handshake, on the connection's loop: connect, send the upgrade
 * request, read the answer head, check it (RFC 6455 §4.1), then hand the socket to a
 * {@link WsConnection}. Loop thread only.
 */
final class WsClientHandshake implements IoHandler {
    private static final Log LOG = Log.of(WsClientHandshake.class);

    private final long id;
    private final URI uri;
    private final List<String> subprotocols;
    private final WsListener listener;
    private final RandomGenerator random;
    private final WsConnection.Settings settings;
    private final SocketChannel channel;
    private final EventLoop loop;
    private final BufferPool buffers;
    private final CompletableFuture<WsSession> opened;
    private final WriteQueue out;
    private final String key;
    private SelectionKey selectionKey;
    private ByteBuffer in;
    private Timer timeout;

    WsClientHandshake(long id, URI uri, List<String> subprotocols, WsListener listener, RandomGenerator random,
                      WsConnection.Settings settings, SocketChannel channel, EventLoop loop, BufferPool buffers,
                      CompletableFuture<WsSession> opened) {
        this.id = id;
        this.uri = uri;
        this.subprotocols = subprotocols;
        this.listener = listener;
        this.random = random;
        this.settings = settings;
        this.channel = channel;
        this.loop = loop;
        this.buffers = buffers;
        this.opened = opened;
        this.out = new WriteQueue(buffers);
        this.key = WsHandshake.newKey(random);
    }

    void start(InetSocketAddress address) {
        try {
            timeout = loop.schedule(WebSocketClient.HANDSHAKE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS,
                    () -> fail(new IOException("WebSocket handshake with " + uri + " did not finish within "
                            + WebSocketClient.HANDSHAKE_TIMEOUT.toSeconds() + " s")));
            out.putAscii(request());
            if (channel.connect(address)) {
                selectionKey = loop.register(channel, SelectionKey.OP_WRITE | SelectionKey.OP_READ, this);
            } else {
                selectionKey = loop.register(channel, SelectionKey.OP_CONNECT, this);
            }
        } catch (IOException | RuntimeException e) {
            fail(e);
        }
    }

    @Override
    public void onReady(SelectionKey readyKey, int ready) {
        try {
            if ((ready & SelectionKey.OP_CONNECT) != 0) {
                channel.finishConnect();
                readyKey.interestOps(SelectionKey.OP_WRITE | SelectionKey.OP_READ);
                return;
            }
            if ((ready & SelectionKey.OP_WRITE) != 0 && out.writeTo(channel)) readyKey.interestOps(SelectionKey.OP_READ);
            if ((ready & SelectionKey.OP_READ) != 0) onReadable();
        } catch (IOException | RuntimeException e) {
            fail(e);
        }
    }

    @Override
    public void onClosedByLoop() {
        fail(new IOException("event loop stopped during the WebSocket handshake"));
    }

    private void onReadable() throws IOException {
        if (in == null) in = buffers.acquire();
        int n = channel.read(in);
        if (n < 0) throw new IOException("connection closed during the WebSocket handshake with " + uri);
        int end = endOfHead(in);
        if (end < 0) {
            if (!in.hasRemaining()) throw new IOException("handshake answer head larger than " + in.capacity() + " bytes");
            return;
        }
        String head = new String(in.array(), 0, end, StandardCharsets.ISO_8859_1);
        String subprotocol = check(head);
        // What followed the head is already WebSocket input: it goes to the connection as its leftover.
        in.flip().position(end);
        in.compact();
        ByteBuffer leftover = in;
        in = null;
        timeout.cancel();
        Headers headers = Headers.of("Host", authority());
        Request request = new Request("GET", target(), true, true, headers, new byte[0]);
        var binding = new WsConnection.Binding(listener, request, subprotocol, null, null);
        var transport = new WsConnection.Transport(channel, selectionKey, loop, buffers, out, leftover);
        WsConnection connection = WsConnection.start(id, random, binding, settings, transport, () -> { });
        opened.complete(connection.session());
    }

    /** Checks the answer head; returns the agreed subprotocol (or null). */
    private String check(String head) throws IOException {
        List<String> lines = head.lines().toList();
        String status = lines.getFirst();
        if (!status.startsWith("HTTP/1.1 101")) throw new IOException("WebSocket handshake refused by " + uri + ": " + status);
        String accept = field(lines, "sec-websocket-accept");
        if (!WsHandshake.acceptKey(key).equals(accept)) throw new IOException("wrong Sec-WebSocket-Accept from " + uri + ": " + accept);
        String upgrade = field(lines, "upgrade");
        if (upgrade == null || !upgrade.equalsIgnoreCase("websocket")) throw new IOException("101 without 'Upgrade: websocket' from " + uri);
        String subprotocol = field(lines, "sec-websocket-protocol");
        if (subprotocol != null && !subprotocols.contains(subprotocol)) {
            throw new IOException("server chose subprotocol '" + subprotocol + "', which was not offered");
        }
        return subprotocol;
    }

    private static String field(List<String> lines, String name) {
        for (String line : lines) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals(name)) return line.substring(colon + 1).trim();
        }
        return null;
    }

    /** Index just past the CRLFCRLF that ends the head, or -1. */
    private static int endOfHead(ByteBuffer buffer) {
        byte[] a = buffer.array();
        for (int i = 3; i < buffer.position(); i++) {
            if (a[i] == '\n' && a[i - 1] == '\r' && a[i - 2] == '\n' && a[i - 3] == '\r') return i + 1;
        }
        return -1;
    }

    private String request() {
        StringBuilder request = new StringBuilder(256)
                .append("GET ").append(target()).append(" HTTP/1.1\r\n")
                .append("Host: ").append(authority()).append("\r\n")
                .append("Upgrade: websocket\r\nConnection: Upgrade\r\n")
                .append("Sec-WebSocket-Key: ").append(key).append("\r\n")
                .append("Sec-WebSocket-Version: 13\r\n");
        if (!subprotocols.isEmpty()) request.append("Sec-WebSocket-Protocol: ").append(String.join(", ", subprotocols)).append("\r\n");
        return request.append("\r\n").toString();
    }

    private String target() {
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        return uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
    }

    private String authority() {
        return uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
    }

    private void fail(Throwable failure) {
        if (opened.isDone()) return;
        LOG.debug("ws_handshake_failed", "id", id, "uri", uri, "cause", failure);
        if (timeout != null) timeout.cancel();
        if (selectionKey != null) selectionKey.cancel();
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("ws_close_failed", "id", id, "cause", e);
        }
        out.clear();
        if (in != null) buffers.release(in);
        in = null;
        opened.completeExceptionally(failure);
    }
}
